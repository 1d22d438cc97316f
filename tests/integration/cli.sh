# The command line: --help and --version, every kind of bad input (status
# 125, one message naming the flag or FILE:LINE, exactly one JSON line,
# nothing left behind), -q, --print-policy round trips, --probe and
# --print-backend.
. "$(dirname "$0")/lib.sh"

# --help and --version: status 0, stdout only, no diagnostics line.
"$SBXRUN" --help >"$T/out" 2>"$T/err" 3>"$T/diag"
is "$?" 0 "--help exits 0"
like "$(cat "$T/out")" "Usage: sbxrun" "--help prints the usage on stdout"
like "$(cat "$T/out")" "--print-policy" "--help lists the options"
is "$(cat "$T/err")" "" "--help writes nothing on stderr (no diagnostics line)"
"$SBXRUN" -h --diag fd:3 >"$T/out" 2>"$T/err" 3>"$T/diag"
is "$?" 0 "-h exits 0"
is "$(cat "$T/err")$(cat "$T/diag")" "" "-h --diag fd:3 writes no diagnostics line"
"$SBXRUN" --version >"$T/out" 2>"$T/err"
is "$?" 0 "--version exits 0"
version=$(head -n 1 "$T/out")
cp "$T/out" "$T/version.out"
like "$version" "sbxrun " "--version prints 'sbxrun VERSION' first"
is "$(cat "$T/err")" "" "--version writes nothing on stderr"
# ... then what was built in.
like "$(cat "$T/out")" "
backends: " "--version: the backends built in"
if [ "$(uname -s)" = Linux ]; then
	like "$(cat "$T/out")" "
backends: namespaces, landlock, docker, none (auto tries namespaces, then landlock)
not in this build: seatbelt (macOS only)
landlock: asks for the rights of ABI 1 to " "--version on Linux: namespaces, landlock and docker, the Landlock ABI asked for"
	seccomp_line=$(grep '^libseccomp: built with [0-9]*\.[0-9]*\.[0-9]*, running [0-9]*\.[0-9]*\.[0-9]*$' "$T/out")
	ok "--version: the libseccomp version built with and running" test -n "$seccomp_line"
	if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libseccomp; then
		like "$seccomp_line" "built with $(pkg-config --modversion libseccomp)," \
		    "... the one pkg-config names"
	else
		skip "pkg-config does not know libseccomp: the built-with version cannot be checked" 1
	fi
fi
"$SBXRUN" -V >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/out")" "0:$(cat "$T/version.out")" "-V is --version"
sbxn --listen 70000
is "sbxrun $(jget version)" "$version" "the diagnostics line carries the same version"
# --help wins over a bad profile: nothing is loaded.
"$SBXRUN" --help -p "$T/nonexistent.ini" >/dev/null 2>"$T/err"
is "$?:$(cat "$T/err")" "0:" "--help does not load profiles"

# bad_input TEXT ARG...: sbxrun ARG... (stdin empty, default --diag stderr)
# must exit 125, print nothing on stdout, and on stderr exactly one
# "sbxrun: " line containing TEXT followed by one JSON line whose error is
# that message and whose status is 125; nothing may be left in $TMPDIR.
bad_input() {
	_want=$1
	shift
	"$SBXRUN" "$@" </dev/null >"$T/out" 2>"$T/err"
	_st=$?
	_what="sbxrun $*"
	is "$_st" 125 "$_what: exits 125"
	is "$(cat "$T/out")" "" "$_what: nothing on stdout"
	is "$(wc -l <"$T/err" | tr -d ' ')" 2 "$_what: stderr is one message and one JSON line"
	_msg=$(head -n 1 "$T/err")
	like "$_msg" "sbxrun: " "$_what: the message starts with 'sbxrun: '"
	like "$_msg" "$_want" "$_what: the message names '$_want'"
	last_line "$T/err" >"$T/last"
	ok "$_what: the last line is one JSON object" json_line "$T/last"
	is "$(jget status "$T/last"):$(jget error "$T/last")" "125:${_msg#sbxrun: }" \
		"$_what: status 125, error = the message"
	ok "$_what: the JSON line has every member" check_diag "$T/last"
	is "$(leftovers)" "" "$_what: nothing left in TMPDIR"
}

printf '[sandbox]\n; the key below has a typo\nmemroy = 1G\n' >"$T/bad.ini"
printf '[sandbox]\nfs = open\n[read]\npath = /x\n[sandbox]\nfs = strict\n' >"$T/dup.ini"
printf '[sandbox]\nfs = open\n  network = on\n' >"$T/indent.ini"
printf '[ports]\nlisten = 70000\n' >"$T/port.ini"
printf '[sandbox]\nmemory = lots\n' >"$T/mem.ini"
printf '[sandbx]\n' >"$T/section.ini"
printf '[sandbox]\nfs = open\n' >"$T/good.ini"
mkdir -p "$HOME/.ssh" "$T/wd" "$T/src"
ln -s /etc "$T/wd/lnk"

bad_input "--listen" --listen 70000
bad_input "--connect" --connect 443,https
bad_input "--memory" --memory lots
bad_input "--timeout" -t forever
bad_input "--cpu" --cpu 1d
bad_input "--pids" --pids 0
bad_input "--open-files" --open-files many
bad_input "--file-size" --file-size 1P
bad_input "--network" --network maybe
bad_input "--backend" --backend bwrap
bad_input "--mount: bad mode 'rx' in 'src:data:rx' (want ro or rw" -m src:data:rx
bad_input "--mount: bad mode 'w'" -m /srv/a:b:w
bad_input "--fs" --fs
bad_input "--bogus-flag" --bogus-flag
bad_input "-Z" -Z
bad_input "--mount" -m nocolon
bad_input "--mount" -m "$T/src:../up"
bad_input "--env" -e NOVALUE
bad_input "--env" -e 1A=x
bad_input "--pass-env" --pass-env A-B
bad_input "--diag" --diag fd:x
bad_input "--script-name" --script-name x.py
bad_input "--script-name" --interp python3 --script-name ../x.py
bad_input "--interp" --interp python3 -- true
bad_input "--protect" --protect /etc
bad_input "--allow-host" --allow-host "bad host"
# Rules that would be parsed and then ignored: no proxy runs without an
# allow list, no trace without --trace.
bad_input "--deny-host) needs an allow list" --deny-host x.example --network on
bad_input "--allow-method) needs an allow list" --allow-method GET
bad_input "--trace-all) needs a trace" --trace-all
bad_input "--docker-image" --docker-image -x
bad_input "--workdir" -w "~nosuchuser/x"
bad_input "$T/missing.ini" -p "$T/missing.ini"
bad_input "profile 'nosuch' not found" -p nosuch
bad_input "bad profile name" -p ".hidden"
bad_input "$T/bad.ini:3: unknown key 'memroy' in [sandbox]" -p "$T/bad.ini"
bad_input "$T/dup.ini:6: duplicated key 'fs' in [sandbox]" -p "$T/dup.ini"
bad_input "$T/indent.ini:3: indented line" -p "$T/indent.ini"
bad_input "$T/port.ini:2: listen: port 70000 is out of range" -p "$T/port.ini"
bad_input "$T/mem.ini:2: memory: bad size 'lots'" -p "$T/mem.ini"
bad_input "$T/section.ini:1: unknown section [sandbx]" -p "$T/section.ini"
bad_input "$T/bad.ini:3:" -p "$T/good.ini" -p "$T/bad.ini" --fs open
# "Did you mean": a close name is suggested, for flags, keys and sections.
bad_input "$T/bad.ini:3: unknown key 'memroy' in [sandbox]; did you mean 'memory'?" -p "$T/bad.ini"
bad_input "$T/section.ini:1: unknown section [sandbx]; did you mean [sandbox]?" -p "$T/section.ini"
printf '[sandbox]\nlisten = 80\n' >"$T/wrongsec.ini"
bad_input "$T/wrongsec.ini:2: unknown key 'listen' in [sandbox]; it belongs in [ports]" -p "$T/wrongsec.ini"
bad_input "unknown option '--alow-read'; did you mean '--allow-read'?" --alow-read /x
bad_input "unknown option '--alow-read'; did you mean '--allow-read'?" --alow-read=/x
bad_input "option '--allow' is ambiguous: --allow-read, --allow-host, --allow-method, --allow-degraded" --allow /x
bad_input "option '--keep' takes no argument" --keep=yes
bad_input "unknown option '--frobnicate'" --frobnicate
bad_input "port 8080 is both a listen and a loopback port" --listen 8080 --loopback 8080
# Refused workdirs and mounts (--backend none: these are checks of sbxrun's;
# --allow-degraded with mounts, which that backend cannot place,
# made before any backend runs anything).
bad_input "$T/nonexistent" --backend none -w "$T/nonexistent"
bad_input "workdir '/' refused" --backend none -w /
bad_input "workdir '/etc' refused" --backend none -w /etc
bad_input "workdir '/tmp' refused" --backend none -w /tmp
bad_input "refused" --backend none -w /proc/1
bad_input "workdir '/usr/share' refused" --backend none -w /usr/share
bad_input "workdir '$HOME/.ssh' refused" --backend none -w "$HOME/.ssh"
bad_input "workdir '$HOME/.ssh' refused" --backend none -w "$HOME/./.ssh/"
bad_input "mount source '$T/nonexistent'" --backend none --allow-degraded -w "$T/wd" -m "$T/nonexistent:data"
bad_input "home" --backend none --allow-degraded -w "$T/wd" -m "$HOME:h"
bad_input "secret" --backend none --allow-degraded -w "$T/wd" -m "$HOME/.ssh:s"
bad_input "secret" --backend none --allow-degraded -w "$T/wd" -m "$HOME/../home/.ssh:s"
bad_input "mount source '/etc' refused" --backend none --allow-degraded -w "$T/wd" -m /etc:etc
bad_input "mount source '/bin' refused" --backend none --allow-degraded -w "$T/wd" -m /bin:b
# Where /bin is a link (merged /usr), what it resolves to is /bin too.
if [ -L /bin ]; then
	bin=$(readlink -f /bin)
	bad_input "mount source '$bin' refused" --backend none --allow-degraded -w "$T/wd" -m "$bin:b"
fi
bad_input "symlink" --backend none --allow-degraded -w "$T/wd" -m "$T/src:lnk/x"
bad_input "sbxrun's own state" --backend none --allow-degraded -w "$T/wd" -m "$T/src:.sbxrun"
# A failure after the temporary workdir was made removes it, --keep or not.
bad_input "mount source" --backend none --allow-degraded -m "$T/nonexistent:data"
bad_input "mount source" --backend none --allow-degraded --keep -m "$T/nonexistent:data"
bad_input "--interp" --backend none --interp ""
ok "no workdir made by a refused run remains" test ! -e "$T/wd/.sbxrun"

# What a backend cannot do is refused, never accepted and ignored.
bad_input "--trace needs the namespaces or landlock backend" --backend none --allow-degraded \
    --trace "$T/t.jsonl"
ok "a refused --trace makes no trace file" test ! -e "$T/t.jsonl"
printf '[sandbox]\nbackend = none\nallow_degraded = yes\ntrace = %s\n' "$T/p.jsonl" >"$T/trace.ini"
bad_input "backend none cannot trace" -p "$T/trace.ini"
ok "... from a profile too, with no trace file" test ! -e "$T/p.jsonl"
bad_input "--selftest tries the default policy" --selftest --network off
# docker with no daemon to answer: refused, saying so.
DOCKER_HOST=unix://$T/no-daemon.sock bad_input "the docker daemon does not answer" --backend docker

# A message is one line whatever it quotes: a newline in a flag shows as '?'
# on stderr, while the JSON line keeps it, escaped.
"$SBXRUN" "$(printf -- '--bo\ngus')" </dev/null >"$T/out" 2>"$T/err"
is "$?" 125 "a flag holding a newline: 125"
is "$(wc -l <"$T/err" | tr -d ' ')" 2 "a flag holding a newline: one message line and the JSON line"
like "$(head -n 1 "$T/err")" "'--bo?gus'" "the newline shows as '?' in the message"
last_line "$T/err" >"$T/last"
ok "a flag holding a newline: the last line is one JSON object" json_line "$T/last"

# A C1 control in UTF-8 (U+009B, a CSI to some terminals) shows as '?'
# too: a key of a profile, as a name the sandbox chose might be.
printf '[sandbox]\n\302\23331m = 1\n' >"$T/c1.ini"
"$SBXRUN" --backend none -p "$T/c1.ini" --diag none </dev/null >"$T/out" 2>"$T/err"
is "$?" 125 "a profile key holding U+009B: 125"
like "$(cat "$T/err")" "'??31m'" "... it shows as '??' in the message"

# --diag fd:N that is not open: refused, and the line goes to stderr rather
# than into a descriptor sbxrun opens there later.
echo true | "$SBXRUN" --diag fd:9 9>&- >"$T/out" 2>"$T/err"
is "$?" 125 "--diag fd:9 with 9 closed: 125"
like "$(head -n 1 "$T/err")" "--diag fd:9: descriptor 9 is not open" "... naming the flag"
last_line "$T/err" >"$T/last"
ok "--diag fd:9 with 9 closed: the JSON line on stderr instead" check_diag "$T/last"

# Open for reading only, the line would be lost after the run: refused
# before anything runs (the payload would make a marker, backend none:
# the check comes before any backend), for fd:N and for the default,
# stderr.
rm -f "$T/ran"
echo "touch '$T/ran'" | "$SBXRUN" --backend none --diag fd:9 9<"$T/c1.ini" >"$T/out" 2>"$T/err"
is "$?" 125 "--diag fd:9 open for reading only: 125"
like "$(head -n 1 "$T/err")" "--diag fd:9: descriptor 9 is not open for writing" "... naming the flag"
ok "--diag fd:9 open for reading only: nothing ran" test ! -e "$T/ran"
echo "touch '$T/ran'" | "$SBXRUN" --backend none 2<"$T/c1.ini" >"$T/out"
is "$?" 125 "stderr open for reading only (the default --diag): 125"
ok "stderr open for reading only: nothing ran" test ! -e "$T/ran"
echo "touch '$T/ran'" | "$SBXRUN" --backend none 2>&- >"$T/out"
is "$?" 125 "stderr closed (the default --diag): 125"
ok "stderr closed: nothing ran" test ! -e "$T/ran"
echo "touch '$T/ran'" | "$SBXRUN" --backend none --diag none 2>&- >"$T/out"
is "$?" 0 "stderr closed with --diag none: the run goes on (control)"
ok "stderr closed with --diag none: the payload ran" test -e "$T/ran"

# Out of descriptors at any step of the start (RLIMIT_NOFILE from 5 up):
# a 125, or the run; never a directory left in TMPDIR. (At 8, the keeper
# made the private TMPDIR, could not open it, and left it there.)
for b in namespaces landlock; do
	bad=
	for n in 5 6 7 8 9 10 11 12 14 16; do
		echo true | prlimit --nofile=$n -- "$SBXRUN" --backend "$b" >/dev/null 2>"$T/err"
		st=$?
		[ "$st" = 0 ] || [ "$st" = 125 ] || bad="$bad nofile=$n:status=$st"
		[ -z "$(leftovers)" ] || bad="$bad nofile=$n:left=$(leftovers | tr '\n' ' ')"
		rm -rf "${TMPDIR:?}"/* 2>/dev/null
	done
	is "$bad" "" "$b, RLIMIT_NOFILE 5-16: a 125 or the run, and nothing left in TMPDIR"
done

# A run refused before anything ran had no barrier in force.
sbx_script true --backend seatbelt
is "$SBX_STATUS:$(jget isolation)" "125:none" "a refused run (seatbelt on Linux): isolation none"

# --docker-image under another backend is named as not used, not dropped.
sbx_script true --docker-image debian:stable-slim --allow-degraded
is "$SBX_STATUS" 0 "--docker-image with the default backend: it runs"
like "$(jget warnings)" "docker_image debian:stable-slim is not used" "... and a warning says the image is not used"

# Output that cannot be written is a failure like any other: status 125,
# a message and the JSON line, never a silent 125.
"$SBXRUN" --print-policy >/dev/full 2>"$T/err"
is "$?" 125 "--print-policy to a full disk: 125"
like "$(head -n 1 "$T/err")" "sbxrun: " "--print-policy to a full disk: a message says why"
last_line "$T/err" >"$T/last"
ok "--print-policy to a full disk: the JSON line" json_line "$T/last"
"$SBXRUN" --version --diag "$T/v.json" >/dev/null 2>&1
ok "--version writes no diagnostics line even with --diag PATH" test ! -e "$T/v.json"

# -q: no message of sbxrun's own, the diagnostics line still goes out.
"$SBXRUN" -q --listen 70000 </dev/null >"$T/out" 2>"$T/err"
is "$?" 125 "-q --listen 70000: exits 125"
is "$(wc -l <"$T/err" | tr -d ' ')" 1 "-q: stderr holds only the JSON line"
ok "-q: that line is JSON" json_line "$T/err"
like "$(jget error "$T/err")" "--listen" "-q: the error is still in the JSON"
"$SBXRUN" -q --diag none --listen 70000 </dev/null >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "125:" "-q --diag none: status 125, stderr empty"

# --print-policy: a profile on stdout, status 0, nothing run, no diag line.
cat >"$T/every.ini" <<'EOF'
[sandbox]
backend = namespaces
fs = allowlist
network = on
workdir = ~/proj
keep = yes
allow_degraded = yes
timeout = 90s
memory = 512M
pids = 256
cpu = 1500ms
file_size = 1G
open_files = 1024
trace = run.trace.jsonl
docker_image = debian:stable-slim
[read]
path = /opt/datasets
[deny]
path = ~/.config/gh
[mounts]
data = /srv/data:ro
out = ~/out:rw
[ports]
listen = 8080, 8081
connect = 443
loopback = 8899
[proxy]
allow = api.example.com
allow = *.example.org
[protect]
path = .envrc
[env]
LANG = C.UTF-8
EMPTY =
pass = TERM
EOF
sbx -p "$T/every.ini" --listen 9000 -e X=1 -r /srv/extra --print-policy
is "$SBX_STATUS" 0 "--print-policy exits 0"
is "$(cat "$T/err")$(cat "$T/diag")" "" "--print-policy: no message, no diagnostics line"
cp "$T/out" "$T/p1.ini"
like "$(cat "$T/p1.ini")" "listen = 8080, 8081" "--print-policy: the profile's ports"
like "$(cat "$T/p1.ini")" "listen = 9000" "--print-policy: flags extend lists"
like "$(cat "$T/p1.ini")" "workdir = $HOME/proj" "--print-policy: ~ expanded"
# Each value's origin, as a comment: the profile's file as it was named
# and the line, the flag, or built-in.
like "$(cat "$T/p1.ini")" "
listen = 8080, 8081              ; $T/every.ini:24
listen = 9000                    ; --listen
" "--print-policy: each port says where it came from"
like "$(cat "$T/p1.ini")" "
timeout = 90s                    ; $T/every.ini:8
" "... a value from a profile: FILE:LINE"
like "$(cat "$T/p1.ini")" "
path = /srv/extra                ; --allow-read
" "... a list entry from a flag: the flag"
sbx -p "$T/every.ini" --print-policy -r /opt/datasets --keep
like "$(cat "$T/out")" "
keep = yes                       ; --keep
" "... a value set by a profile and then a flag: the flag"
like "$(cat "$T/out")" "
path = /opt/datasets             ; $T/every.ini:17, --allow-read
" "... a list entry given by both: both"
sbx --print-policy
like "$(cat "$T/out")" "
backend = auto                   ; built-in
" "... a value nobody set: built-in"
sbx -p "$T/p1.ini" --print-policy
cp "$T/out" "$T/p2.ini"
is "$SBX_STATUS" 0 "the printed policy loads with -p"
# Without the origin comments, the reprint is the same text; with them,
# every value now comes from its own line of p1.ini.
strip_origins() { sed -e '/^;/d' -e 's/  *; .*$//' "$1"; }
strip_origins "$T/p1.ini" >"$T/p1.plain"
strip_origins "$T/p2.ini" >"$T/p2.plain"
ok "print, reload, print again: the same profile but for the origins" cmp -s "$T/p1.plain" "$T/p2.plain"
is "$(awk -v f="$T/p1.ini" '/^[^;[]/ && $0 !~ ("; " f ":" NR "$") { print NR ": " $0 }' "$T/p2.ini")" "" \
	"... and each value's origin is its own line of the printed file"
is "$(leftovers)" "" "--print-policy leaves nothing behind"
sbx --print-policy
is "$SBX_STATUS" 0 "--print-policy of the defaults"
like "$(cat "$T/out")" "fs = strict" "the default fs is strict"
like "$(cat "$T/out")" "network = off" "the default network is off"
like "$(cat "$T/out")" "backend = auto" "the default backend is auto"
sbx --fs bogus --print-policy
like "$(cat "$T/out")" "fs = strict" "--fs bogus prints as strict"
for f in "$SRCDIR"/profiles/*.ini; do
	sbx -p "$f" --print-policy
	cp "$T/out" "$T/s1.ini"
	is "$SBX_STATUS" 0 "shipped profile $(basename "$f"): --print-policy exits 0"
	sbx -p "$T/s1.ini" --print-policy
	strip_origins "$T/s1.ini" >"$T/s1.plain"
	strip_origins "$T/out" >"$T/s2.plain"
	ok "shipped profile $(basename "$f"): print, reload, print: identical but for the origins" cmp -s "$T/s1.plain" "$T/s2.plain"
done

# --print-policy cannot be made to print lines the policy does not have:
# a newline in a mount target (the injection) is refused at input, from a
# flag and from a profile, naming which; a target a profile key cannot
# hold is refused too; a flag's value no profile line can hold is not
# printed (125), but a run would use it.
nl='
'
sbx -m "/srv:a${nl}[ports]${nl}loopback = 22" --print-policy
is "$SBX_STATUS" 125 "--print-policy: a newline in a mount target is refused"
like "$(cat "$T/err")" "--mount: mount target 'a\x0a[ports]" "... naming the flag, the byte escaped"
is "$(cat "$T/out")" "" "... and nothing is printed"
printf '[env]\nX = a\033[31mb\n' >"$T/ctl.ini"
sbx -p "$T/ctl.ini" --print-policy
is "$SBX_STATUS" 125 "a control byte in a profile value is refused"
like "$(cat "$T/err")" "ctl.ini:2: X: value 'a\x1b[31mb' holds the control character 0x1b" \
    "... naming FILE:LINE"
sbx -m /srv:a=b --print-policy
is "$SBX_STATUS" 125 "a mount target holding '=' is refused"
like "$(cat "$T/err")" "mount target 'a=b' holds '='" "... saying why"
sbx -e 'X=a ; b' --print-policy
is "$SBX_STATUS" 125 "--print-policy of a value no profile line can hold: 125"
like "$(cat "$T/err")" "[env] X = 'a ; b' cannot be written in a profile" "... naming the value"
is "$(cat "$T/out")" "" "... and nothing is printed"
sbx -e 'X=;v' -m '/srv:t;u' --print-policy
cp "$T/out" "$T/semi.ini"
sbx -p "$T/semi.ini" --print-policy
strip_origins "$T/semi.ini" >"$T/semi.plain"
strip_origins "$T/out" >"$T/semi2.plain"
ok "values starting with ';', targets holding ';': print, reload, print: identical" \
    cmp -s "$T/semi.plain" "$T/semi2.plain"
like "$(cat "$T/semi.ini")" "
X =;v                            ; --env" "... the origin comment leaves a value starting with ';' whole"
like "$(cat "$T/semi.ini")" "X =;v" "... a leading ';' is written right after '='"

# --backend none says in one line on stderr that nothing is enforced.
"$SBXRUN" --backend none --diag none -- true </dev/null >"$T/out" 2>"$T/err"
is "$?" 0 "--backend none runs"
is "$(cat "$T/err")" "sbxrun: warning: backend none: nothing is enforced; the command runs with all of your rights" \
    "--backend none: exactly one warning line on stderr"
"$SBXRUN" --backend none --diag none -q -- true </dev/null >"$T/out" 2>"$T/err"
is "$(cat "$T/err")" "" "--backend none -q: no warning"

# Completions offer exactly the backends a Linux build has (docker
# included, since it is built).
bash -c '. "$1"; COMP_WORDS=(sbxrun --backend ""); COMP_CWORD=2
	COMP_LINE="sbxrun --backend "; COMP_POINT=${#COMP_LINE}
	_sbxrun sbxrun "" --backend; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$SRCDIR/completions/sbxrun" >"$T/comp" 2>&1
is "$(tr '\n' ' ' <"$T/comp")" "auto namespaces landlock seatbelt docker none " \
    "bash completion of --backend: the built backends"
fish -c "source '$SRCDIR/completions/sbxrun.fish'; complete -C 'sbxrun --backend '" \
    >"$T/comp" 2>&1
is "$(cut -f1 "$T/comp" | tr '\n' ' ')" "auto docker landlock namespaces none seatbelt " \
    "fish completion of --backend: the built backends"
like "$(grep "backend=" "$SRCDIR/completions/_sbxrun")" "(auto namespaces landlock seatbelt docker none)" \
    "zsh completion: the built backends"

# The man pages format without warnings, and their examples run as written.
if command -v groff >/dev/null 2>&1; then
	for m in sbxrun.1 sbxrun.profile.5; do
		groff -ww -z -mandoc -Tutf8 "$SRCDIR/man/$m" >"$T/groff" 2>&1
		is "$(cat "$T/groff")" "" "groff -ww: no warning in man/$m"
	done
else
	skip "groff is not installed: the man pages cannot be formatted" 2
fi
like "$(cat "$SRCDIR/man/sbxrun.1")" 'sbxrun -w . --diag fd:3 -- make test 3>"$diag"' \
    "man page: the CI example names its workdir, its line kept outside it"

# --help, the man page and the three completions name the same options:
# every long option of --help has an entry in the man page's OPTIONS and is
# offered by each completion, and every long option of the man page's
# synopsis is in --help.
"$SBXRUN" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$T/help-opts"
grep '^\.Op Fl -[a-z]' "$SRCDIR/man/sbxrun.1" | sed 's/^\.Op Fl -\([a-z-]*\).*/--\1/' | sort -u >"$T/man-opts"
missing=
for o in $(cat "$T/help-opts"); do
	grep '^\.It ' "$SRCDIR/man/sbxrun.1" | grep -q -- "Fl ${o#-}\( \|$\)" || missing="$missing man:$o"
	grep -q -- "$o\( \|'\|$\)" "$SRCDIR/completions/sbxrun" || missing="$missing bash:$o"
	grep -qF -e "$o[" -e "$o=" -e "$o}" "$SRCDIR/completions/_sbxrun" || missing="$missing zsh:$o"
	grep -q -- "-l ${o#--}\( \|$\)" "$SRCDIR/completions/sbxrun.fish" || missing="$missing fish:$o"
done
is "$missing" "" "every option of --help is described in the man page and in each completion"
is "$(comm -13 "$T/help-opts" "$T/man-opts" | tr '\n' ' ')" "" \
    "every long option of the man page's synopsis is in --help"
ok "--list-profiles is in the synopsis" grep -q -- '^--list-profiles$' "$T/man-opts"

# --list-profiles: what -p NAME finds, status 0, stdout only, no JSON line.
XP=$XDG_CONFIG_HOME/sbxrun/profiles
mkdir -p "$XP"
printf '; My CI: the network off\n[sandbox]\nnetwork = off\n' >"$XP/myci.ini"
printf '[sandbox]\nfs = open\n' >"$XP/bare.ini"
printf '; hidden\n' >"$XP/.hidden.ini"
"$SBXRUN" --list-profiles --diag "$T/lp.json" >"$T/out" 2>"$T/err"
is "$?" 0 "--list-profiles exits 0"
is "$(cat "$T/err")" "" "--list-profiles: nothing on stderr (no diagnostics line)"
ok "--list-profiles: no diagnostics file either" test ! -e "$T/lp.json"
like "$(head -n 1 "$T/out")" "NAME" "--list-profiles: a header"
ok "--list-profiles: a profile, its file and its first comment line" \
    grep -q "^myci  *$XP/myci.ini  *My CI: the network off$" "$T/out"
ok "--list-profiles: a profile without a comment: no description" grep -q "^bare  *$XP/bare.ini$" "$T/out"
ok "--list-profiles: a name -p cannot find is not listed" test "$(grep -c hidden "$T/out")" = 0
# Shadowing: a name in XDG_CONFIG_HOME and in a later directory of the
# lookup (which the lookup's own message names).
sbx -p nosuch --print-policy
later=$(jget error | sed 's/.* in //; s/)$//' | tr ',' '\n' | sed 's/^ //' | tail -n +2)
shadowed=
for d in $later; do
	for f in "$d"/*.ini; do
		[ -r "$f" ] || continue
		shadowed=$f
		break 2
	done
done
if [ -n "$shadowed" ]; then
	name=$(basename "$shadowed" .ini)
	printf '; mine wins\n' >"$XP/$name.ini"
	"$SBXRUN" --list-profiles >"$T/out" 2>&1
	is "$(grep -c "^$name " "$T/out")" 1 "--list-profiles: a shadowed name is shown once"
	ok "... with the file that wins" grep -q "^$name  *$XP/$name.ini  *mine wins$" "$T/out"
	ok "... and the file it shadows, marked" \
	    grep -q "^  *$shadowed  *(shadowed by the file above)$" "$T/out"
	rm -f "$XP/$name.ini"
else
	skip "no profile in /etc/sbxrun/profiles or the installed directory: nothing to shadow (the unit tests do)" 3
fi
rm -f "$XP/myci.ini" "$XP/bare.ini" "$XP/.hidden.ini"

# --probe: one JSON object, status 0.
sbx --probe
is "$SBX_STATUS" 0 "--probe exits 0"
ok "--probe prints one JSON object" json_line "$T/out"
jget auto "$T/out" >/dev/null
is "$?" 0 "--probe says what auto picks"

# --print-backend: status 0, the temp workdir it resolved is gone.
sbxn --print-backend --memory 64M
is "$SBX_STATUS" 0 "--print-backend --backend none exits 0"
like "$(cat "$T/out")" "backend none" "--print-backend names the backend"
like "$(cat "$T/out")" "RLIMIT_AS" "--print-backend shows the memory rlimit"
is "$(leftovers)" "" "--print-backend leaves no workdir behind"

# A relative workdir with the current directory removed: said so, not
# taken for "/" (found by review).
mkdir "$T/gone"
(cd "$T/gone" && rmdir "$T/gone" && "$SBXRUN" --backend none --diag none -w . -- true \
    >"$T/out" 2>"$T/err"; echo "$?" >"$T/st")
is "$(cat "$T/st")" 125 "-w . in a removed directory: refused"
like "$(cat "$T/err")" "the current directory cannot be found" "... and the error says why"

done_testing
