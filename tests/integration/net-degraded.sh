# A network rule the chosen backend cannot enforce (sbxrun(1), NETWORK, and
# issue 5): sbxrun refuses with 125 and an error naming the rule, unless
# --allow-degraded; then it runs, and "unenforced" names the rule. The
# backend "none" enforces no network rule at all, so every port list and
# the proxy allowlist are such rules there. Nothing here depends on the
# Linux backends, so this script runs once.
. "$(dirname "$0")/lib.sh"

for c in listen:"--listen 8080" connect:"--connect 443" loopback:"--loopback 8899" \
    proxy:"--allow-host example.org"; do
	rule=${c%%:*}
	args=${c#*:}
	# shellcheck disable=SC2086
	sbx --backend none $args -- true
	is "$SBX_STATUS" 125 "--backend none $args: refused with 125"
	like "$(jget error)" "$rule" "... and the error names the rule ($rule)"
	ok "... and the diagnostics line is complete" check_diag "$T/diag"
	# shellcheck disable=SC2086
	sbx --backend none --allow-degraded $args -- true
	is "$SBX_STATUS" 0 "--backend none --allow-degraded $args: runs"
	like "$(jget unenforced)" "\"$rule\"" "... and unenforced lists $rule"
	unlike "$(jget isolation)" full "... and isolation is not full"
done

# Asking for no jail and no network rule is not a degradation.
sbx --backend none -- true
is "$SBX_STATUS" 0 "--backend none alone runs (asked for)"
is "$(jget backend)" none "... with backend none"

done_testing
