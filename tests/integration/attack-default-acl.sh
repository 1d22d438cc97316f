# A default ACL planted for later (doc/design/threat-model.md, "Nothing
# is planted for later"). A directory's default ACL (acl(5)), not the
# maker's umask, sets the permissions of what is made in it later: the
# sandbox sets "u::rwx,g::rwx,o::rwx" as system.posix_acl_default on the
# workdir, on a directory of the caller's and on the source of a
# read-write mount, and the files and directories the caller creates
# there after the run, umask 077 or not, are writable by every local
# user, who can then rewrite the caller's next build script or put a .git
# there. The namespaces backend's filter cannot see xattr names; under
# landlock the supervisor refuses system.* names. Verdicts on the host:
# the default ACL's entry for others grants no write after the run (in a
# directory made in the run, which inherited it, too), what the caller
# makes there afterwards is not writable by others, the warning names the
# directories; a default ACL that gives others no write, and one of the
# caller's that the run did not touch, are left as they were. Under
# landlock: the call is refused (EPERM) and no default ACL is there
# after the run.
# Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=19

# The permission bits of the entry for others in PATH's default ACL, read
# through the kernel's xattr form (acl(5)): 0-7, "none" when PATH has no
# default ACL, or why it could not be read.
acl_other() {
	"$PY" - "$1" <<'EOF'
import errno, os, struct, sys
try:
    b = os.getxattr(sys.argv[1], "system.posix_acl_default")
except OSError as e:
    print("none" if e.errno == errno.ENODATA else "error: " + e.strerror)
    sys.exit(0)
for off in range(4, len(b), 8):
    tag, perm, _ = struct.unpack_from("<HHI", b, off)
    if tag == 0x20:
        print(perm)
        break
else:
    print("no entry for others")
EOF
}

# Sets PATH's default ACL to u::rwx,g::rwx,o::PERM (also in the jail:
# python3 is there in every fs mode); prints "R:NAME:0" or the errno.
SET_ACL='import os, struct, sys
for arg in sys.argv[1:]:
    name, path, perm = arg.split(":")
    acl = struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", t, p, 0xFFFFFFFF) for t, p in ((1, 7), (4, 7), (0x20, int(perm))))
    try:
        os.setxattr(path, "system.posix_acl_default", acl)
        print("R:%s:0" % name)
    except OSError as e:
        print("R:%s:%d" % (name, e.errno))'

# Whether PATH grants others no write (its mode's other bits).
closed() {
	[ $((0$(stat -c %a "$1") & 2)) = 0 ]
}

# The warning about default ACLs, if any.
acl_warning() {
	grep -o '"the run left [^"]*with a default ACL[^"]*"' "$T/diag"
}

# What the caller makes in DIR after the run, with umask 077.
caller_makes() {
	(
		umask 077
		mkdir "$1/later"
		echo 'echo build step' >"$1/later/step.sh"
		echo top >"$1/new.txt"
	)
}

mkdir "$WD/out" "$WD/keep" "$WD/calm"
chmod 755 "$WD/out" "$WD/keep" "$WD/calm"
"$PY" -c "$SET_ACL" "calm:$WD/calm:7" >/dev/null
if [ "$(acl_other "$WD/calm")" != 7 ]; then
	skip "the filesystem of $WD takes no POSIX ACL" "$N_TESTS"
	done_testing
	exit 0
fi
# Inode times come from the coarse clock: the control's change must fall
# in an earlier tick than the run's start (a change in the same tick
# counts as made in the run, sbxrun(1)).
sleep 0.1

jail_sh "python3 -c '$SET_ACL' top:.:7 out:out:7 keep:keep:5; mkdir out/deep; exit 0" -w "$WD"
is_status 0 "the script ran"
if [ "$SBX_BACKEND" = landlock ]; then
	is "$(rc_of top)" 1 "the default ACL on the workdir is refused (EPERM)"
	is "$(rc_of out)" 1 "the default ACL on a directory in it is refused (EPERM)"
	is "$(acl_other "$WD")" none "the workdir has no default ACL after the run"
	is "$(acl_other "$WD/out")" none "nor has the directory"
	is "$(acl_other "$WD/out/deep")" none "nor the directory made in it"
	ok "the directory made in it is not writable by others" closed "$WD/out/deep"
	unlike "$(acl_warning)" "out" "no default ACL the sandbox tried to set is named in the warnings"
else
	is "$(rc_of top)" 0 "the sandbox set a default ACL on the workdir (no filter sees its name)"
	is "$(acl_other "$WD")" 5 "the workdir's default ACL gives others no write after the run"
	is "$(acl_other "$WD/out")" 5 "nor does the directory's"
	is "$(acl_other "$WD/out/deep")" 5 "nor does the one a directory made in the run inherited"
	ok "the directory made in the run is not writable by others" closed "$WD/out/deep"
	like "$(acl_warning)" "with a default ACL that makes what is created there writable by other users" \
	    "the warning says so"
	like "$(acl_warning)" "the workdir itself, out" "and names the directories"
	like "$(acl_warning)" "out/deep" "the inherited one too"
fi
is "$(acl_other "$WD/keep")" "$([ "$SBX_BACKEND" = landlock ] && echo none || echo 5)" \
    "a default ACL that gave others no write is left as it was"
unlike "$(acl_warning)" "keep" "and is not named"
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	# The lend changes every entry: all count as changed in the run.
	is "$(acl_other "$WD/calm")" 5 "a default ACL of the caller's, lent and handed back, loses write for others"
else
	is "$(acl_other "$WD/calm")" 7 "a default ACL of the caller's that the run did not touch is left as it was"
fi

caller_makes "$WD"
caller_makes "$WD/out"
ok "a file the caller makes in the workdir afterwards is not writable by others" closed "$WD/new.txt"
ok "nor is one made in the directory" closed "$WD/out/new.txt"
ok "nor a directory made there" closed "$WD/out/later"
ok "nor a file in that one" closed "$WD/out/later/step.sh"

# The source of a read-write mount is the caller's as much as the workdir.
if ns_only "the landlock backend places no mounts" 3; then
	SRC=$JT/src
	mkdir -p "$SRC"
	chmod 755 "$SRC"
	new_wd
	jail_sh "python3 -c '$SET_ACL' lib:lib:7; exit 0" -w "$WD" -m "$SRC:lib:rw"
	is "$(acl_other "$SRC")" 5 "the mount source's default ACL gives others no write after the run"
	like "$(acl_warning)" "of the read-write mount $SRC with a default ACL" "the warning names the mount"
	caller_makes "$SRC"
	ok "what the caller makes there afterwards is not writable by others" closed "$SRC/later/step.sh"
fi

done_testing
