# Metadata calls answered by the supervisor's dispatcher itself (under
# landlock: the change is made there when it cannot block, and the walk
# up to the writable tree's root starts from the directory the call named
# the file in, docs: doc/design/metadata-speed.md). Each call here names
# one entry of its working directory, the shape that takes those
# shortcuts: inside a protected directory, inside a hidden one, through a
# symlink whose own directory is ordinary, "." and ".." of the workdir,
# and in a read-only mount's directory outside the writable trees. The
# verdict is read on the host: mode and mtime unchanged; controls show the
# same calls change an ordinary file. Run for $SBX_BACKEND (under
# namespaces the mounts refuse the same calls).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=7

# mode and mtime of each path, read here.
meta() {
	for p in "$@"; do
		stat -c '%n %a %Y' "$p"
	done
}

mkdir -p "$WD/.git/hooks" "$WD/sec" "$WD/sub" "$WD/ctl"
printf '#!/bin/sh\necho hook\n' >"$WD/.git/hooks/x"
echo secret >"$WD/sec/f"
echo plain >"$WD/sub/p"
echo plain >"$WD/ctl/c"
ln -s ../.git/hooks/x "$WD/sub/lx"
RO=$(mktemp -d "$JT/ro.XXXXXX")
echo outside >"$RO/o"
chmod 644 "$WD/.git/hooks/x" "$WD/sec/f" "$WD/sub/p" "$WD/ctl/c" "$RO/o"
chmod 755 "$WD" "$WD/.git" "$WD/.git/hooks" "$WD/sec" "$WD/sub" "$WD/ctl" "$RO"
touch -h -d '2020-02-02 02:02:02' "$WD" "$WD/.git/hooks/x" "$WD/.git/hooks" "$WD/sec/f" \
    "$WD/sub/lx" "$WD/sub/p" "$WD/ctl/c" "$RO/o" "$RO"
# A root caller's sandbox runs as uid 65534 and its workdir shows the
# caller's files as its own (covered or lent: sbxrun(1)). The read-only
# directory outside is made 65534's, so that only the supervisor's
# verdict, not the file's owner, keeps the sandbox from changing it.
if [ "$(id -u)" = 0 ] && [ "$SBX_BACKEND" = landlock ]; then
	chown -R 65534:65534 "$RO"
fi
# The parent of the workdir: a directory of the caller's, outside the trees.
chmod 755 "$(dirname "$WD")"
watched="$WD/.git/hooks/x $WD/.git/hooks $WD/sec/f $RO/o $RO"
# The parent's mtime moves with the test's own files: its mode only.
before="$(meta $watched) $(stat -c %a "$(dirname "$WD")")"

jail_sh "T=978307200
(cd .git/hooks && chmod 777 x; touch -d @\$T x; chmod 777 .; touch -d @\$T .)
(cd sec && chmod 777 f; touch -d @\$T f)
(cd sub && chmod 777 lx; touch -d @\$T lx)
chmod 777 ..; touch -d @\$T ..
(cd $RO && chmod 777 o; touch -d @\$T o; chmod 777 .; touch -d @\$T .)
(cd ctl && chmod 700 c && touch -d @\$T c && echo control-ok) 2>&1
exit 0" -w "$WD" --deny-read "$WD/sec" --fs allowlist -r "$RO"
is_status 0 "the script ran"
after="$(meta $watched) $(stat -c %a "$(dirname "$WD")")"
if ! is "$after" "$before" \
    "a protected file and directory, a hidden file, a symlink's protected target and a read-only mount keep mode and mtime, the workdir's parent its mode"; then
	diag "$(tail -n 5 "$T/err")"
fi
like "$(cat "$T/out")" "control-ok" "control: the same calls succeed on an ordinary file"
is "$(stat -c '%a %Y' "$WD/ctl/c")" "700 978307200" "control: its mode and mtime changed on the host"

# --- a hundred levels below a protected directory, and below an ordinary one ------------
# The walk up looks at each ancestor as dir/.., dir/../.., ... and starts
# again from the one reached when that path grows long: past that point
# the protected directory must still be met, the workdir still reached.
new_wd
deep=$(i=0; p=d; while [ $i -lt 99 ]; do p=$p/d; i=$((i + 1)); done; echo $p)
mkdir -p "$WD/prot/$deep" "$WD/open/$deep"
echo x >"$WD/prot/$deep/f"
echo x >"$WD/open/$deep/f"
chmod 644 "$WD/prot/$deep/f" "$WD/open/$deep/f"
jail_sh "(cd prot/$deep && chmod 777 f); (cd open/$deep && chmod 700 f && echo deep-ok) 2>&1
exit 0" -w "$WD" --protect prot
is_status 0 "the deep script ran"
is "$(stat -c %a "$WD/prot/$deep/f")" 644 "a file 100 levels below a protected directory keeps its mode"
is "$(stat -c %a "$WD/open/$deep/f")" 700 "control: one 100 levels below an ordinary directory changed"

done_testing
