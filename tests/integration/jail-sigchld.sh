# sbxrun started with SIGCHLD ignored (a daemon may hand that on through
# exec): the kernel would reap every child of sbxrun itself, so sbxrun puts
# the default back before its first child (sbxrun(1), EXIT STATUS: the
# script's status is sbxrun's). Before, the run failed with "wait for the
# jail: No child processes" and hung until killed. Judged by the status
# sbxrun exits with and the JSON line it writes. Run for both backends.
. "$(dirname "$0")/jail-lib.sh"

printf 'echo ran; exit 3\n' >"$T/script"
for b in namespaces landlock; do
	timeout 30 "$PY" -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])
' "$SBXRUN" --backend "$b" --diag fd:3 <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
	is_status 3 "$b: with SIGCHLD ignored, sbxrun exits with the script's status"
	is "$(cat "$T/out")" ran "$b: ... the script ran"
	like "$(cat "$T/diag")" '"exit_code":3' "$b: ... and the JSON line says so"
done

done_testing
