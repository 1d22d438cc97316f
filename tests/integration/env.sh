# The environment inside is built, never inherited: exactly PATH, HOME
# (the workdir), TMPDIR, LANG, USER, LOGNAME, PWD and SHELL, plus [env],
# --env and --pass-env. An API key in the caller's environment never gets
# in. COMMAND "env" prints what the child really got.
. "$(dirname "$0")/lib.sh"

mkdir "$T/wd"
WD=$(cd "$T/wd" && pwd -P)
me=$(id -un)

# names FILE: the sorted variable names in env output.
names() {
	sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' "$1" | sort | tr '\n' ' '
}
# val NAME: the value of NAME in $T/out.
val() {
	sed -n "s/^$1=//p" "$T/out"
}

export FAKE_API_KEY=sk-test-0123456789 AWS_SECRET_ACCESS_KEY=also-secret
export LD_PRELOAD= SSH_AUTH_SOCK=/tmp/agent.sock PYTHONPATH=/evil
export LANG=C.UTF-8
sbxn -w "$WD" -- env
is "$SBX_STATUS" 0 "env runs"
is "$(names "$T/out")" "HOME LANG LOGNAME PATH PWD SHELL TMPDIR USER " \
	"exactly PATH HOME TMPDIR LANG USER LOGNAME PWD SHELL, nothing else"
unlike "$(cat "$T/out")" "sk-test-0123456789" "FAKE_API_KEY's value is nowhere in the child's environment"
is "$(val HOME)" "$WD" "HOME is the workdir"
is "$(val PWD)" "$WD" "PWD is the workdir"
is "$(val TMPDIR)" "/tmp" "TMPDIR is /tmp"
is "$(val SHELL)" "/bin/sh" "SHELL is /bin/sh"
is "$(val USER)" "$me" "USER is the caller's name"
is "$(val LOGNAME)" "$me" "LOGNAME is the caller's name"
like ":$(val PATH):" ":/usr/bin:" "PATH holds /usr/bin"
unlike "$(val PATH)" "$HOME" "PATH is sbxrun's, not the caller's"
is "$(val LANG)" "C.UTF-8" "LANG"

sbxn -w "$WD" -e A=1 --env "B=two words" -e "C=x=y" -e EMPTY= --pass-env FAKE_API_KEY \
	--pass-env NOT_SET_ANYWHERE -- env
is "$(names "$T/out")" "A B C EMPTY FAKE_API_KEY HOME LANG LOGNAME PATH PWD SHELL TMPDIR USER " \
	"--env adds variables, --pass-env copies one that is set, not one that is not"
is "$(val A)|$(val B)|$(val C)|$(val EMPTY)" "1|two words|x=y|" "--env values arrive as given"
is "$(val FAKE_API_KEY)" "sk-test-0123456789" "--pass-env FAKE_API_KEY copies it (only when asked)"

sbxn -w "$WD" -e HOME=/elsewhere -e PATH=/bin -- env
is "$(val HOME):$(val PATH)" "/elsewhere:/bin" "--env may set HOME and PATH on purpose"

printf '[env]\nFROM_PROFILE = yes ; comment\npass = SSH_AUTH_SOCK\n' >"$T/env.ini"
sbxn -w "$WD" -p "$T/env.ini" -e FROM_FLAG=1 -- env
is "$(val FROM_PROFILE):$(val SSH_AUTH_SOCK):$(val FROM_FLAG)" "yes:/tmp/agent.sock:1" \
	"[env] sets and passes, flags add"
sbxn -w "$WD" -p "$T/env.ini" -e FROM_PROFILE=flag -- env
is "$(val FROM_PROFILE)" "flag" "--env overrides the profile's [env]"

# A script sees the same: the shell adds nothing secret.
sbx_script 'env > env.txt' --backend none -w "$WD"
unlike "$(cat "$WD/env.txt")" "sk-test" "a script's environment has no API key"
unlike "$(cat "$WD/env.txt")" "PYTHONPATH" "... nor PYTHONPATH"
unlike "$(cat "$WD/env.txt")" "SSH_AUTH_SOCK" "... nor SSH_AUTH_SOCK"
like "$(cat "$WD/env.txt")" "HOME=$WD" "... HOME is the workdir"

# Without -w, HOME and PWD are the temporary workdir.
sbxn -- sh -c 'echo "$HOME"; pwd -P'
is "$(sed -n 1p "$T/out")" "$(sed -n 2p "$T/out")" "without -w, HOME is the temporary workdir, the cwd"
like "$(sed -n 1p "$T/out")" "$TMPDIR/sbxrun." "... under TMPDIR"

# The caller's LANG is used when set, C.UTF-8 otherwise.
LANG= sbxn -w "$WD" -- env
is "$(val LANG)" "C.UTF-8" "an empty LANG becomes C.UTF-8"
(unset LANG; "$SBXRUN" --backend none --diag none -w "$WD" -- env >"$T/out")
is "$(val LANG)" "C.UTF-8" "an unset LANG becomes C.UTF-8"

done_testing
