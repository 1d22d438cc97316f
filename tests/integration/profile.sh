# Profiles from the command line: lookup of a NAME in XDG_CONFIG_HOME (or
# ~/.config) before the system directories, several -p applied in order,
# flags over profiles, errors naming FILE:LINE, the fs fallback, and that
# a profile's settings reach the run.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/wd" "$XDG_CONFIG_HOME/sbxrun/profiles" "$HOME/.config/sbxrun/profiles"
WD=$(cd "$T/wd" && pwd -P)
XP=$XDG_CONFIG_HOME/sbxrun/profiles

# --- Lookup by NAME. -----------------------------------------------------------
printf '[sandbox]\ntimeout = 7s\n' >"$XP/mine.ini"
sbx -p mine --print-policy
is "$SBX_STATUS" 0 "-p NAME finds \$XDG_CONFIG_HOME/sbxrun/profiles/NAME.ini"
like "$(cat "$T/out")" "timeout = 7s" "... and loads it"
printf '[sandbox]\ntimeout = 11s\n' >"$XP/ci.ini"
sbx -p ci --print-policy
like "$(cat "$T/out")" "timeout = 11s" "the user's directory comes before /etc and the installed profiles"
printf '[sandbox]\ntimeout = 13s\n' >"$HOME/.config/sbxrun/profiles/home.ini"
sbx -p home --print-policy
is "$SBX_STATUS" 125 "with XDG_CONFIG_HOME set, ~/.config is not searched"
(unset XDG_CONFIG_HOME; "$SBXRUN" -p home --print-policy >"$T/out" 2>"$T/err")
is "$?" 0 "without XDG_CONFIG_HOME, -p NAME looks in ~/.config/sbxrun/profiles"
like "$(cat "$T/out")" "timeout = 13s" "... and loads it"
(XDG_CONFIG_HOME=relative/dir; export XDG_CONFIG_HOME; "$SBXRUN" -p home --print-policy >"$T/out" 2>"$T/err")
like "$(cat "$T/out")" "timeout = 13s" "a relative XDG_CONFIG_HOME is ignored (XDG spec)"
sbx -p nosuch-profile --print-policy
is "$SBX_STATUS" 125 "an unknown NAME: 125"
like "$(jget error)" "$XP" "... the error says where it looked"
like "$(jget error)" "nosuch-profile.ini" "... and what it looked for"
(cd "$T" && printf '[sandbox]\ntimeout = 17s\n' >local.ini &&
	"$SBXRUN" -p local.ini --print-policy >"$T/out" 2>"$T/err")
like "$(cat "$T/out")" "timeout = 17s" "-p NAME.ini is a file (relative to the cwd), not a NAME"
(cd "$T" && "$SBXRUN" -p ./local.ini --print-policy >"$T/out" 2>"$T/err")
like "$(cat "$T/out")" "timeout = 17s" "-p ./FILE is a file"
sbx -p "../$(basename "$T")/nothing" --print-policy
is "$SBX_STATUS" 125 "-p with a missing path: 125"
sbx -p "$T" --print-policy
is "$SBX_STATUS" 125 "-p DIRECTORY: 125"

# --- Several profiles, then flags. -----------------------------------------
printf '[sandbox]\nfs = open\ntimeout = 1m\n[ports]\nlisten = 80\n[env]\nA = 1\n' >"$T/a.ini"
printf '[sandbox]\nfs = allowlist\n[ports]\nlisten = 81\n[env]\nA = 2\nB = 3\n' >"$T/b.ini"
sbx -p "$T/a.ini" -p "$T/b.ini" --print-policy
is "$SBX_STATUS" 0 "two profiles setting the same keys load (a key per profile, not per run)"
like "$(cat "$T/out")" "fs = allowlist" "the later profile overrides scalars"
like "$(cat "$T/out")" "timeout = 1m" "... and keeps what it does not set"
like "$(cat "$T/out")" "
listen = 80                      ; $T/a.ini:5
listen = 81                      ; $T/b.ini:4
" "lists extend across profiles, each entry with its origin"
like "$(cat "$T/out")" "A = 2" "[env] variables override"
sbx -p "$T/a.ini" -p "$T/b.ini" --fs strict --listen 82 -t 2s --print-policy
like "$(cat "$T/out")" "fs = strict" "flags override every profile"
like "$(cat "$T/out")" "
listen = 81                      ; $T/b.ini:4
listen = 82                      ; --listen" "flags extend lists"
like "$(cat "$T/out")" "
fs = strict                      ; --fs" "a flag over a profile: the flag is the origin"
like "$(cat "$T/out")" "timeout = 2s" "-t overrides timeout"
sbx --fs open -p "$T/b.ini" --print-policy
like "$(cat "$T/out")" "fs = open" "flags apply after profiles, wherever they stand"

# --- The profile's settings reach the run. ---------------------------------
cat >"$T/run.ini" <<EOF
[sandbox]
backend = none
workdir = $WD
timeout = 1s
[env]
FROM_PROFILE = yes
EOF
sbx_script 'echo "$FROM_PROFILE" > seen; pwd -P >> seen; sleep 5' -p "$T/run.ini"
is "$SBX_STATUS" 124 "the profile's timeout applies (exit 124)"
is "$(cat "$WD/seen")" "yes
$WD" "the profile's [env] and workdir apply"
is "$(jget backend)" "none" "the profile's backend applies"

# --- Errors name FILE:LINE and stop everything. -----------------------------
printf '[sandbox]\nbackend = none\nworkdir = %s\n\n[ports]\nlisten = 8080\nbind = 80\n' "$WD" >"$T/e1.ini"
sbx_script 'echo ran > ran' -p "$T/e1.ini"
is "$SBX_STATUS" 125 "a profile with an unknown key: 125"
is "$(jget error)" "$T/e1.ini:7: unknown key 'bind' in [ports]" "... error names FILE:LINE and the key"
ok "... and nothing ran" test ! -e "$WD/ran"
printf '\n\n[sandbox]\nmemory = lots\n' >"$T/e2.ini"
sbx -p "$T/e2.ini" --backend none -- true
is "$(jget error)" "$T/e2.ini:4: memory: bad size 'lots' (want a number with K, M, G or T)" \
	"memory = lots: FILE:LINE"
printf '[sandbox]\nfs = open\nfs = strict\n' >"$T/e3.ini"
sbx -p "$T/e3.ini" --print-policy
is "$SBX_STATUS:$(jget error)" "125:$T/e3.ini:3: duplicated key 'fs' in [sandbox]" \
	"a duplicated scalar: 125, FILE:LINE (even for --print-policy)"
printf '[sandbox]\nfs = open\n\tnetwork = on\n' >"$T/e4.ini"
sbx -p "$T/e4.ini" --print-policy
like "$SBX_STATUS:$(jget error)" "125:$T/e4.ini:3: indented line" "an indented line: FILE:LINE"
printf '[ports]\nlisten = 70000\n' >"$T/e5.ini"
sbx -p "$T/e5.ini" --print-policy
is "$(jget error)" "$T/e5.ini:2: listen: port 70000 is out of range (1-65535)" "port 70000: FILE:LINE"
printf 'fs = open\n' >"$T/e6.ini"
sbx -p "$T/e6.ini" --print-policy
is "$(jget error)" "$T/e6.ini:1: key 'fs' outside of any section" "a key before any section: FILE:LINE"
printf '[sandbox]\n[netwrok]\n' >"$T/e7.ini"
sbx -p "$T/e7.ini" --print-policy
is "$(jget error)" "$T/e7.ini:2: unknown section [netwrok]" "an unknown empty section: FILE:LINE"
printf '[sandbox]\nfs = open\n[ports]\nlistn = 8080\n' >"$T/e9.ini"
sbx -p "$T/e9.ini" --print-policy
is "$SBX_STATUS:$(jget error)" "125:$T/e9.ini:4: unknown key 'listn' in [ports]; did you mean 'listen'?" \
    "a mistyped key: FILE:LINE, and the key it is close to"
# Longer than inih's line buffer: still read whole, and written back whole.
"$PY" -c 'import sys; sys.stdout.write("[sandbox]\nfs = allowlist\n[read]\npath = /" + "a" * 5000 + "\n")' >"$T/e8.ini"
sbx -p "$T/e8.ini" --print-policy
is "$SBX_STATUS:$(grep -c "^path = /a\{5000\} ; $T/e8.ini:4$" "$T/out")" "0:1" "a 5000-character line: read and printed whole"
printf '[sandbox]\nfs = open\n' >"$T/ok.ini"
sbx -p "$T/ok.ini" -p "$T/e5.ini" --print-policy
like "$(jget error)" "$T/e5.ini:2:" "a bad second profile is named, not the first"

# --- The fs fallback: strict plus a warning, never open. ------------------
printf '[sandbox]\nbackend = none\nfs = opne\n' >"$T/fs.ini"
sbx_script 'true' -p "$T/fs.ini" -w "$WD"
is "$SBX_STATUS" 0 "fs = opne: the run goes ahead"
is "$(jget fs)" "strict" "fs = opne: fs is strict in the JSON"
like "$(jget warnings)" "unknown fs value 'opne' replaced by strict" "... with a warning in the JSON"
sbx -p "$T/fs.ini" --print-policy
like "$(cat "$T/out")" "fs = strict" "fs = opne prints as strict"

done_testing
