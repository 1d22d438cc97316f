# A file with no name (unlinked while open, or made with O_TMPFILE) in the
# workdir: under namespaces the sandbox changes its mode and times as
# anywhere in its own tree; under landlock the metadata supervisor cannot
# tell where such a file lies and refuses it, counted in "denials"
# (sbxrun(1), BACKENDS, landlock); a file with a name takes the change
# (the control). Verdicts: the mode read on the host,
# the diagnostics line; the sandbox's own report is a second opinion.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
cat >"$WD/nameless.py" <<'PY'
import os
def t(name, fn):
    try:
        fn(); r = "OK"
    except OSError as e:
        r = os.strerror(e.errno)
    print("R:%s:%s" % (name, r), flush=True)
fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o600)
t("tmpfile", lambda: os.fchmod(fd, 0o644))
f = open("u", "w"); os.unlink("u")
t("unlinked", lambda: os.fchmod(f.fileno(), 0o644))
open("named", "w").close()
t("named", lambda: os.chmod("named", 0o640))
PY
chmod 644 "$WD/nameless.py"
jail_sh "python3 nameless.py" -q -w "$WD"
is "$(stat -c %a "$WD/named" 2>/dev/null)" 640 \
    "control: a file with a name takes its new mode ($SBX_BACKEND)"
if [ "$SBX_BACKEND" = landlock ]; then
	want=Operation\ not\ permitted
	is "$(jget denials)" 2 "landlock: the two calls on nameless files count as denials"
else
	want=OK
	is "$(jget denials)" 0 "namespaces: nothing is refused"
fi
is "$(sed -n 's/^R:tmpfile://p' "$T/out")" "$want" "an O_TMPFILE file's mode ($SBX_BACKEND)"
is "$(sed -n 's/^R:unlinked://p' "$T/out")" "$want" "an unlinked file's mode ($SBX_BACKEND)"
done_testing
