# Handback at any depth (sbxrun(1), FILES): run as root, everything the
# sandbox leaves in the workdir belongs to the caller afterwards, however
# deep, with no set-id bits and no security.* or trusted.* attributes;
# what could not be handed back is named in the warnings. The landlock
# backend lends the workdir to uid 65534 and hands it back after the run;
# the namespaces backend writes through an idmapped mount. Every verdict
# is read on the host: find -uid 65534, the attributes listed by root.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=14
if ! root_only "only a root caller's workdir is lent and handed back" "$N_TESTS"; then
	done_testing
	exit
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is needed to read attributes on the host" "$N_TESTS"
	done_testing
	exit
fi

# On the host, as root: every entry below $1 (at any depth) that carries a
# security.* (but the SELinux label) or trusted.* attribute.
bad_xattrs() {
	python3 - "$1" <<'PY'
import os, sys
for top, dirs, files in os.walk(sys.argv[1]):
    for n in dirs + files:
        p = os.path.join(top, n)
        try:
            names = os.listxattr(p, follow_symlinks=False)
        except OSError:
            continue
        for x in names:
            if x.startswith("trusted.") or (x.startswith("security.") and x != "security.selinux"):
                print("depth %d: %s %s" % (p.count("/") - sys.argv[1].count("/"), n, x))
PY
}

# A 300-deep chain of directories (past the old walk's 256), a file at the
# bottom, and everything the sandbox can try to plant on it: set-id bits,
# file capabilities, a trusted.* attribute (each may be refused: the
# verdict is on the host).
deep='i=0
while [ $i -lt 300 ]; do mkdir d && cd d || exit 3; i=$((i+1)); done
echo deep >file && cp /bin/true tool || exit 4
chmod u+s,g+s tool 2>/dev/null
python3 - <<PY
import os, struct
cap = struct.pack("<IIIII", 0x02000001, 1 << 21, 1 << 21, 0, 0)
for name, val in (("security.capability", cap), ("trusted.sbx", b"1"), ("user.sbx", b"1")):
    for f in ("tool", "file", "."):
        try:
            os.setxattr(f, name, val)
        except OSError:
            pass
PY
mkfifo fifo 2>/dev/null; ln -s /etc/shadow link
exit 0'

new_wd
jail_sh "$deep" -w "$WD"
is_status 0 "the 300-deep tree was made"
bottom=$WD$(i=0; while [ $i -lt 300 ]; do printf /d; i=$((i+1)); done)
is "$(cat "$bottom/file" 2>&1)" deep "the file at depth 300 is on the host (control)"
is "$(find "$WD" -uid 65534 | wc -l)" 0 "nothing in the workdir is owned by uid 65534 afterwards"
is "$(find "$WD" -user 0 | wc -l)" 305 "every entry down to depth 300 belongs to the caller"
is "$(find "$WD" -perm /6000 ! -type d)" "" "no set-id file is left, at any depth"
is "$(bad_xattrs "$WD")" "" "no security.* or trusted.* attribute is left, at any depth"
unlike "$(cat "$T/diag")" "handed back" "the warnings name nothing that was not handed back"

# A deep tree that was the caller's before the run is lent whole and
# comes back whole, with its own group.
new_wd
(cd "$WD" && i=0 && while [ $i -lt 280 ]; do mkdir d && cd d || exit 1; i=$((i+1)); done &&
    echo old >f && chgrp -R 4 "$WD/d")
jail_sh "cd \$(find . -name f -exec dirname {} +) && echo new >g && cat f; exit 0" -w "$WD"
is_status 0 "a run in a workdir holding a 280-deep tree works"
is "$(find "$WD" -uid 65534 | wc -l)" 0 "nothing of it is left to uid 65534"
is "$(find "$WD/d" -user 0 -group 4 | wc -l)" 281 "the lent entries come back with their own group"

# Attributes the caller's own files had: a file the run did not touch
# keeps root's trusted.* attribute. Under landlock the handback scrubs
# what the sandbox changed or made, and skips what it left untouched
# since the lend (its change time is older than the lend's end; entries
# lent in the lend's last clock tick are scrubbed all the same, so the
# tree is big enough for the lend to span several ticks: 12,000 entries
# at a few system calls each, against ticks of 10 ms at most). A file the
# sandbox wrote into loses the attribute there: it cannot have set one,
# but the scrub does not know who did.
new_wd
python3 - "$WD" <<'PY'
import os, sys
for i in range(12000):
    d = os.path.join(sys.argv[1], "k%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "f%05d" % i)
    with open(p, "w") as f:
        f.write("x\n")
    os.setxattr(p, "trusted.sbxkeep", b"1")
PY
sleep 0.1 # the inode clock is coarse: what was made before must read as older
jail_sh 'for f in k*/f*0; do echo y >>"$f"; done; exit 0' -w "$WD"
is_status 0 "a run that writes into a tenth of 12,000 files"
kept_xattr() {
	python3 - "$WD" "$1" <<'PY'
import glob, os, sys
n = 0
for p in glob.glob(os.path.join(sys.argv[1], "k*", sys.argv[2])):
    if "trusted.sbxkeep" in os.listxattr(p):
        n += 1
print(n)
PY
}
is "$(find "$WD" -uid 65534 | wc -l)" 0 "all of it is the caller's again"
if [ "$SBX_BACKEND" = landlock ]; then
	is "$(kept_xattr 'f*0')" 0 "no file the sandbox wrote into keeps a trusted.* attribute"
	n=$(kept_xattr 'f*[1-9]')
	diag "untouched files that kept it: $n of 10800"
	nok "files lent and left untouched keep the caller's trusted.* attribute" [ "$n" = 0 ]
else
	is "$(kept_xattr 'f*0')" 1200 "files the sandbox wrote into keep the caller's attribute (nothing is lent)"
	is "$(kept_xattr 'f*[1-9]')" 10800 "and so do the files it left untouched"
fi

done_testing
