# Running things: the script on stdin reaches /bin/sh byte for byte,
# --interp stores it as a file with a real name, COMMAND runs directly with
# stdin passed through, exit statuses, the workdir (temporary, kept, given)
# and what "auto" does when nothing isolating is usable.
#
# These tests use --backend none (no jail: what runs is observed directly
# on the host); the jails have tests of their own.
. "$(dirname "$0")/lib.sh"

mkdir "$T/wd"
WD=$(cd "$T/wd" && pwd -P)

# --- The script on stdin, byte for byte. ---------------------------------
# The payload holds quotes, $(...), backticks, ;|& and every byte but NUL;
# the script writes it to a file through a quoted here-document, and the
# host compares the file with the payload. Each payload line starts with
# "x": dash 0.5.12 drops a byte when a line starts like the here-document's
# end marker and goes on with a byte >= 0x80 ("E\325" against "EOF"), a bug
# of the shell, not of the delivery under test.
"$PY" - "$T/junk" <<'EOF'
import random, sys
random.seed(1234)
head = b"'single' \"double\" $(whoami) `id` ${HOME} $HOME ; | & && || > < * ? ~ \\ \\n\n"
allbytes = bytes(b for b in range(1, 256))
body = bytearray(head + allbytes + b"\n")
while len(body) < (1 << 20):
    line = bytes(random.choice(range(1, 256)) for _ in range(random.randint(0, 200)))
    body += b"x" + line.replace(b"\n", b"") + b"\n"
body += b"last line without EOF marker\n"
open(sys.argv[1], "wb").write(body)
EOF
{ printf "cat > out <<'EOF'\n"; cat "$T/junk"; printf 'EOF\nexit 0\n'; } >"$T/script"
ok "(the script is over 1 MiB)" test "$(fsize "$T/script")" -gt 1048576
sbxn -w "$WD" <"$T/script"
is "$SBX_STATUS" 0 "a 1 MiB script of quotes, \$(), backticks, ;|& and binary bytes runs"
ok "the shell received it byte for byte (here-document output = payload)" \
	cmp -s "$T/junk" "$WD/out"
[ -e "$WD/out" ] || diag "no output file"

cat >"$T/script" <<'EOF'
x='a"b'
y="c'd"
printf '%s\n' "$x" "$y" '$(whoami)' "`echo bq`" 'semi;pipe|amp&' > quoted
EOF
sbxn -w "$WD" <"$T/script"
printf '%s\n' 'a"b' "c'd" '$(whoami)' 'bq' 'semi;pipe|amp&' >"$T/want"
ok "shell quoting in the script means what it says" cmp -s "$T/want" "$WD/quoted"
sbxn -w "$WD" </dev/null
is "$SBX_STATUS" 0 "an empty script exits 0"
printf 'echo no newline at the end > nonl' >"$T/in"
sbxn -w "$WD" <"$T/in"
is "$(cat "$WD/nonl" 2>/dev/null)" "no newline at the end" "a script without a final newline runs"

# --- --interp: the script as a file. ---------------------------------------
cat >"$T/tb.py" <<'EOF'
import sys
print("argv0", sys.argv[0])

def fail():
    raise ValueError("boom from line 5")

fail()
EOF
sbxn -w "$WD" --interp python3 <"$T/tb.py"
is "$SBX_STATUS" 1 "--interp python3: an uncaught exception exits 1"
# PROG is given the file relative to its working directory, the workdir.
is "$(grep argv0 "$T/out")" "argv0 .sbxrun/main.py" "the script runs as .sbxrun/main.py in the workdir"
like "$(cat "$T/err")" "File \"$WD/.sbxrun/main.py\", line 5, in fail" \
	"the traceback names .sbxrun/main.py and the right line"
like "$(cat "$T/err")" "ValueError: boom from line 5" "the traceback ends with the exception"
ok "the script file is removed afterwards" test ! -e "$WD/.sbxrun/main.py"
ok "the .sbxrun directory sbxrun made is removed too" test ! -e "$WD/.sbxrun"
is "$(jget exit_code)" 1 "diag: exit_code 1"

sbxn -w "$WD" --interp python3 --script-name job.py <"$T/tb.py"
like "$(cat "$T/err")" "File \"$WD/.sbxrun/job.py\", line 5" "--script-name job.py names the file"
ok "job.py is removed afterwards" test ! -e "$WD/.sbxrun/job.py"

mkdir "$WD/.sbxrun"
echo keep >"$WD/.sbxrun/keep.txt"
sbx_script 'echo "$0"; exit 4' --backend none -w "$WD" --interp sh
is "$SBX_STATUS" 4 "--interp sh: the script's status"
is "$(cat "$T/out")" ".sbxrun/main.sh" "--interp sh stores main.sh"
ok "a .sbxrun that was there before stays, with its files" test -e "$WD/.sbxrun/keep.txt"
ok "... but the script is removed" test ! -e "$WD/.sbxrun/main.sh"
rm -rf "$WD/.sbxrun"

sbxn -w "$WD" --interp cat <"$T/junk"
ok "--interp stores the script byte for byte (cat of the stored file = 1 MiB payload)" \
	cmp -s "$T/junk" "$T/out"

sbxn --interp python3 <"$T/tb.py"
is "$(leftovers)" "" "--interp with a temporary workdir leaves nothing behind"
mkdir "$T/wd2" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/wd2/.sbxrun"
sbxn -w "$T/wd2" --interp python3 <"$T/tb.py"
is "$SBX_STATUS" 125 "--interp when .sbxrun is a symlink: 125"
is "$(ls -A "$T/elsewhere")" "" "... and nothing is written where the symlink leads"

# --- COMMAND: run directly, no shell, stdin passed through. ----------------
sbxn -- printf '%s|' 'a b' '$(whoami)' '*' ';' '`id`' ''
is "$(cat "$T/out")" 'a b|$(whoami)|*|;|`id`||' "COMMAND arguments reach it unchanged (no shell)"
head -c 1048576 /dev/urandom >"$T/bin"
sbxn -- cat <"$T/bin"
ok "COMMAND gets stdin untouched (1 MiB of random bytes, NULs included)" cmp -s "$T/bin" "$T/out"
printf 'line1\nline2' >"$T/in"
sbxn -- wc -l <"$T/in"
is "$(tr -d ' ' <"$T/out")" 1 "COMMAND reads the caller's stdin"
sbxn -- sh -c 'exit 5'
is "$SBX_STATUS" 5 "COMMAND's exit status"
sbxn -w "$WD" -- sh -c 'echo "$1" > arg1' sh '$(echo injected)'
is "$(cat "$WD/arg1")" '$(echo injected)' "an argument holding \$() is not run"

# --- Exit statuses. ----------------------------------------------------------
for code in 0 1 3 42 255; do
	sbx_script "exit $code" --backend none
	is "$SBX_STATUS" "$code" "exit $code: sbxrun exits $code"
	is "$(jget exit_code):$(jget status):$(jget signal)" "$code:$code:null" \
		"exit $code: diag exit_code and status $code, signal null"
done
sbx_script 'kill -KILL $$' --backend none
is "$SBX_STATUS" 137 "killed by SIGKILL: 128+9"
is "$(jget signal):$(jget exit_code):$(jget status)" "SIGKILL:null:137" \
	"diag: signal SIGKILL, exit_code null, status 137"
sbx_script 'kill -TERM $$' --backend none
is "$SBX_STATUS" 143 "killed by SIGTERM: 128+15"
is "$(jget signal)" "SIGTERM" "diag: signal SIGTERM"
sbx_script 'kill -SEGV $$' --backend none
is "$SBX_STATUS" 139 "killed by SIGSEGV: 128+11"
sbx_script 'kill -USR1 $$' --backend none
is "$(jget signal):$SBX_STATUS" "SIGUSR1:138" "killed by SIGUSR1: 128+10"

printf '#!/bin/sh\necho should not run\n' >"$T/noexec"
chmod 644 "$T/noexec"
sbxn -- "$T/noexec"
is "$SBX_STATUS" 126 "a COMMAND that is not executable: 126"
like "$(cat "$T/err")" "$T/noexec" "... the message names it"
is "$(jget status)" 126 "... diag status 126"
like "$(jget error)" "$T/noexec: Permission denied" "... and the error says what could not be executed"
is "$(cat "$T/out")" "" "... nothing ran"
sbxn -- /etc
is "$SBX_STATUS" 126 "a directory as COMMAND: 126"
sbxn -- no-such-command-sbxtest
is "$SBX_STATUS" 127 "a COMMAND not found: 127"
like "$(cat "$T/err")" "no-such-command-sbxtest" "... the message names it"
is "$(jget status)" 127 "... diag status 127"
sbxn -- "$T/nonexistent/cmd"
is "$SBX_STATUS" 127 "an absolute COMMAND that does not exist: 127"
sbx_script 'no-such-command-sbxtest' --backend none
is "$SBX_STATUS" 127 "a script running a missing command: the shell's 127"
sbxn --interp no-such-interp-sbxtest </dev/null
is "$SBX_STATUS" 127 "--interp with a missing interpreter: 127"
is "$(leftovers)" "" "failed commands leave nothing behind"

# --- The workdir. ------------------------------------------------------------
sbxn -- sh -c 'pwd -P; echo "$HOME"; touch made-inside'
tmpwd=$(head -n 1 "$T/out")
like "$tmpwd" "$TMPDIR/sbxrun." "without -w, the workdir is a fresh directory in TMPDIR"
is "$(sed -n 2p "$T/out")" "$tmpwd" "HOME is the workdir"
is "$(jget workdir)" "$tmpwd" "diag workdir is that directory"
ok "the temporary workdir is removed afterwards (files in it too)" test ! -e "$tmpwd"
is "$(leftovers)" "" "nothing left in TMPDIR"

# Removing the temporary workdir never follows a link out of it, and is
# not stopped by what the script locked.
mkdir "$T/precious"
echo keep >"$T/precious/file"
sbx_script "pwd -P
ln -s '$T/precious' link-to-dir
ln -s '$T/precious/file' link-to-file
mkdir -p locked/sub ro
touch locked/sub/f ro/f
chmod 000 locked/sub locked
chmod 500 ro
mkfifo fifo" --backend none
tmpwd=$(head -n 1 "$T/out")
like "$tmpwd" "$TMPDIR/sbxrun." "(a temporary workdir with links, locked dirs and a FIFO)"
ok "it is removed, locked directories and all" test ! -e "$tmpwd"
is "$(cat "$T/precious/file" 2>/dev/null)" "keep" "symlinks in it were removed, not followed"

sbxn --keep -- sh -c 'pwd -P; echo data > kept.txt'
kept=$(head -n 1 "$T/out")
ok "--keep: the workdir stays" test -d "$kept"
is "$(cat "$kept/kept.txt" 2>/dev/null)" "data" "--keep: with what the script wrote"
like "$(cat "$T/err")" "$kept" "--keep: sbxrun says where it is"
rm -rf "$kept"

sbxn -w "$WD" -- pwd -P
is "$(cat "$T/out")" "$WD" "-w DIR is the working directory"
is "$(jget workdir)" "$WD" "diag workdir is DIR"
sbx_script 'echo hello > made.txt' --backend none -w "$WD"
is "$(cat "$WD/made.txt" 2>/dev/null)" "hello" "files written in -w DIR stay"
ok "-w DIR itself stays" test -d "$WD"
(cd "$T" && "$SBXRUN" --backend none --diag "$T/d.json" -w wd -- pwd -P >"$T/out" 2>/dev/null)
is "$(cat "$T/out")" "$WD" "a relative -w is taken from sbxrun's cwd"
is "$(jget workdir "$T/d.json")" "$WD" "diag workdir is absolute"
ln -s "$WD" "$T/wdlink"
sbxn -w "$T/wdlink" -- pwd -P
is "$(jget workdir)" "$WD" "a symlinked -w is canonicalised"
sbxn -w "$WD/sub/.." -- true
is "$SBX_STATUS" 125 "-w through a missing directory and '..' is refused (no lexical '..')"

# --- auto: never a silent run without a jail. ------------------------------
# What auto must do is decided from host facts measured here, not from
# sbxrun's own --probe: with a user namespace or Landlock available it
# runs a full jail; with neither it refuses.
mkdir -p "$T/wa/d"
# Where auto picks landlock for a root caller (a container), the sandbox
# runs as uid 65534, which must be able to enter the workdir's parents.
chmod 711 "$T"
sbx_script 'echo ran > d/ran' -w "$T/wa"
if host_userns || [ "$(host_landlock_abi)" -ge 6 ]; then
	diag "host: userns $(host_userns && echo yes || echo no), Landlock ABI $(host_landlock_abi)"
	is "$SBX_STATUS" 0 "auto runs where the host offers a jail"
	is "$(jget isolation)" "full" "auto ran: isolation is full"
	is "$(jget unenforced)" "[]" "auto ran: nothing unenforced"
	ok "auto ran: the script ran (its file is in the workdir)" test -e "$T/wa/d/ran"
	if host_userns; then
		is "$(jget backend)" namespaces "auto picks namespaces where a user namespace can be made"
	else
		is "$(jget backend)" landlock "auto picks landlock where no user namespace can be made"
	fi
else
	is "$SBX_STATUS" 125 "auto refuses: this host offers neither user namespaces nor Landlock 6"
	like "$(jget error)" "backend" "auto refused: the error says which backend is missing and why"
	ok "auto refused: nothing ran" test ! -e "$T/wa/d/ran"
fi
ok "auto: the diagnostics line is complete" check_diag "$T/diag"
rm -f "$T/wa/d/ran"
sbx_script 'echo ran > d/ran' -w "$T/wa" --allow-degraded
is "$SBX_STATUS" 0 "auto --allow-degraded runs"
ok "auto --allow-degraded: the script ran" test -e "$T/wa/d/ran"
if [ "$(jget isolation)" = full ]; then
	pass "auto --allow-degraded: full isolation"
else
	unlike "$(jget warnings)" "[]" "auto --allow-degraded without full isolation: a warning says so"
	unlike "$(jget unenforced)" "[]" "... and unenforced names the rules"
fi
ok "auto --allow-degraded: the diagnostics line is complete" check_diag "$T/diag"
sbxn -- true
is "$(jget backend):$(jget isolation)" "none:none" "--backend none: backend none, isolation none"

done_testing
