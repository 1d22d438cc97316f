# A never-readable path that an ACL lets the sandbox's uid read is hidden
# all the same (sbxrun(1), "Filesystem"): "file permissions already keep it
# from the sandbox" is judged with the file's access ACL, not by its mode
# bits alone, which then show only the ACL's mask. A plan that looked at
# the mode alone (0640, owner root, group root) left the file to those
# permissions, and the sandbox read it. Run for $SBX_BACKEND (default
# namespaces), as a root caller (the sandbox runs as 65534) and as the
# caller 65534 itself (the sandbox keeps its caller's uid); the verdict is
# the workdir's content, read on the host.
. "$(dirname "$0")/jail-lib.sh"

if root_only "making a file another user owns needs root" 8; then
	canary=$(uniq_tag aclsecret)
	mkdir "$JT/acl"
	chmod 755 "$JT/acl"
	printf '%s\n' "$canary" >"$JT/acl/secret"
	chmod 600 "$JT/acl/secret"
	# The kernel's xattr form of "u::rw-,u:65534:r--,g::---,m::r--,o::---"
	# (acl(5)); no setfacl needed.
	"$PY" - "$JT/acl/secret" <<'EOF'
import os, struct, sys
ents = [(0x01, 6, 0xFFFFFFFF), (0x02, 4, 65534), (0x04, 0, 0xFFFFFFFF),
        (0x10, 4, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in ents)
os.setxattr(sys.argv[1], "system.posix_acl_access", blob)
EOF
	is "$(stat -c %a "$JT/acl/secret")" 640 "the ACL shows as mode 0640 (its mask)"
	is "$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$JT/acl/secret" 2>&1)" \
	    "$canary" "control: the ACL lets uid 65534 read the file on the host"

	for caller in root 65534; do
		new_wd
		as=
		if [ "$caller" != root ]; then
			chown 65534:65534 "$WD"
			as="setpriv --reuid=65534 --regid=65534 --clear-groups env TMPDIR=/tmp"
		fi
		printf '%s\n' "cat '$JT/acl/secret' >read.out 2>&1; cp '$JT/acl/secret' copy 2>/dev/null; exit 0" \
		    >"$T/script"
		# shellcheck disable=SC2086
		(cd / && $as "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" --fs allowlist \
		    -r "$JT/acl" --deny-read "$JT/acl/secret" -w "$WD" \
		    <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag")
		SBX_STATUS=$?
		is_status 0 "caller $caller: the script ran"
		unlike "$(cat "$WD/read.out" 2>&1)" "$canary" \
		    "caller $caller: the sandbox could not read the never-readable file through its ACL"
		absent "caller $caller: ... nor copy it into the workdir" "$WD/copy"
	done
fi

done_testing
