# The allowlist proxy as the sandbox sees it (sbxrun(1), NETWORK), through
# real clients inside: Debian's curl and Python's urllib. With
# --allow-host, an allowed name reaches the remote host's HTTP server
# (plain http:// and a CONNECT tunnel), a name not listed gets 403, a
# listed name resolving to 127.0.0.1 -- or to this machine's own address
# -- gets 403, the five proxy variables are set inside, and nothing else is
# reachable directly (TCP, UDP, this machine's listeners, the resolver).
# The proxy resolves names with the fixture's resolv.conf (rjail: the
# *.sbx.test names exist only there). Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"
if ! rjail_ok; then
	skip "$RJAIL_WHY"
	done_testing
	exit
fi
D=$NET_DOMAIN
R4=$NET_REMOTE4
# Each name on the port it is tried on: an entry without a port would
# allow 80 and 443 only.
ALLOW="--allow-host remote.$D:8080 --allow-host loop.$D:$HL_TCP --allow-host self.$D:$HL_TCP"

cat >"$NETWD/urlget.py" <<'EOF'
import sys, urllib.error, urllib.request
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10)
    print("U:%d:%s" % (r.status, r.read().decode().strip()))
except urllib.error.HTTPError as e:
    print("U:%d:" % e.code)
except Exception as e:
    print("U:000:%s" % e)
EOF
chmod 644 "$NETWD/urlget.py"

# curl's verdict: C:TAG:CODE, with the body in TAG.body in the workdir.
curl_line() {
	printf 'curl -sS -m 10 %s -o %s.body -w "C:%s:%%{http_code}:%%{http_connect}\\n" %s 2>>curl.err || echo "C:%s:failed:$?"\n' \
	    "$2" "$1" "$1" "$3" "$1"
}
code_of() {
	sed -n "s/^C:$1://p" "$T/out" | head -n 1
}

# --- allowed --------------------------------------------------------------
rm -f "$NETWD"/*.body
{
	echo 'for v in HTTPS_PROXY HTTP_PROXY https_proxy http_proxy ALL_PROXY; do'
	echo '	eval "echo ENV:\$v=\${$v:-unset}"'
	echo 'done'
	curl_line plain "" "http://remote.$D:8080/hello?t=plain"
	curl_line tunnel "-p" "http://remote.$D:8080/hello?t=tunnel"
	echo "python3 urlget.py 'http://remote.$D:8080/hello?t=urllib'"
} >"$NETWD/allowed.sh"
rl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW -- sh allowed.sh
is_status 0 "allowed: the script ran"
port=$(jget proxy.port)
ok "the diagnostics name the proxy's port" [ "$port" -gt 0 ] 2>/dev/null
for v in HTTPS_PROXY HTTP_PROXY https_proxy http_proxy; do
	like "$(cat "$T/out")" "ENV:$v=http://127.0.0.1:$port
" "$v is set inside to the proxy"
done
like "$(cat "$T/out")" "ENV:ALL_PROXY=socks5h://127.0.0.1:$port
" "ALL_PROXY is set inside to the proxy's SOCKS5 side (socks5h)"
is "$(code_of plain)" "200:000" "curl, plain http:// through the proxy: 200"
like "$(cat "$NETWD/plain.body" 2>/dev/null)" "hello from the remote host" "... with the remote host's answer"
is "$(code_of tunnel)" "200:200" "curl through a CONNECT tunnel: 200"
like "$(cat "$T/out")" "U:200:hello from the remote host" "Python urllib through the proxy: 200"
ok "the remote host logged curl's plain request" \
    wait_for "rl_has 'GET /hello?t=plain HTTP/1.1 host=remote.$D:8080'" 20
ok "the remote host logged the tunnelled request" \
    wait_for "rl_has 'GET /hello?t=tunnel HTTP/1.1 host=remote.$D:8080'" 20
ok "the remote host logged urllib's request" \
    wait_for "rl_has 'GET /hello?t=urllib HTTP/1.1 host=remote.$D:8080'" 20
denials_are 0 "allowed: no denial"
diag "$(grep -v '^ENV' "$T/out" | tr '\n' ' ') $(cat "$NETWD/curl.err" 2>/dev/null)"

# --- refused by the proxy: 403 --------------------------------------------
rm -f "$NETWD/curl.err"
{
	curl_line other "" "http://other.$D:8080/hello?t=other"
	curl_line loop "" "http://loop.$D:$HL_TCP/?t=loop"
	curl_line loopc "-p" "http://loop.$D:$HL_TCP/?t=loopc"
	curl_line self "" "http://self.$D:$HL_TCP/?t=self"
	echo "python3 urlget.py 'http://other.$D:8080/hello?t=urllib-other'"
} >"$NETWD/refused.sh"
rl_mark
hl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW -- sh refused.sh
is_status 0 "refused: the script ran"
is "$(code_of other)" "403:000" "a name not listed: 403"
is "$(code_of loop)" "403:000" "a listed name resolving to 127.0.0.1: 403"
is "$(code_of loopc)" "000:403" "... and its CONNECT: 403"
is "$(code_of self)" "403:000" "a listed name resolving to this machine's own address: 403"
like "$(cat "$T/out")" "U:403:" "Python urllib, a name not listed: 403"
# A fence of this machine's on each listener aimed at: whatever got through
# is logged before it (net_fence).
net_fence http hltcp
nok "the remote host logged no request for the name not listed" grep -qF "t=other" "$T/rl.step"
nok "... nor a connection at all" grep -qF "tcp 8080 " "$T/rl.step"
is "$(cat "$T/hl.step")" "" "this machine's listener (behind loop.$D and self.$D) logged nothing"
denials_are 5 "refused: denials counts the five 403s"

# --- a denied address reached through an allowed name ---------------------
# --deny-host with an IP address keeps that address out however the
# request names the host: remote.$D is allowed and resolves to $R4 and
# $NET_REMOTE6, both denied.
rm -f "$NETWD/curl.err"
{
	curl_line dname "" "http://remote.$D:8080/hello?t=dname"
	curl_line dnamec "-p" "http://remote.$D:8080/hello?t=dnamec"
} >"$NETWD/denyaddr.sh"
rl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW --deny-host "$R4" --deny-host "[$NET_REMOTE6]" -- sh denyaddr.sh
is_status 0 "deny by address: the script ran"
is "$(code_of dname)" "403:000" "an allowed name resolving to a denied address: 403"
is "$(code_of dnamec)" "000:403" "... and its CONNECT: 403"
net_fence http
nok "the remote host logged no connection for the denied address" grep -qF "tcp 8080 " "$T/rl.step"
denials_are 2 "deny by address: denials counts the two 403s"

# --- ports, methods -------------------------------------------------------
rm -f "$NETWD/curl.err"
{
	curl_line port "" "http://remote.$D:8001/?t=port"
	curl_line portc "-p" "http://remote.$D:8002/?t=portc"
	curl_line get "" "http://remote.$D:8080/hello?t=get"
	curl_line post "-d x" "http://remote.$D:8080/hello?t=post"
	curl_line postc "-p -d x" "http://remote.$D:8080/hello?t=postc"
} >"$NETWD/methods.sh"
rl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW --allow-method GET,HEAD -- sh methods.sh
is_status 0 "methods: the script ran"
is "$(code_of port)" "403:000" "an allowed name on a port it is not allowed on: 403"
is "$(code_of portc)" "000:403" "... and its CONNECT: 403"
is "$(code_of get)" "200:000" "--allow-method GET,HEAD: a plain GET passes"
is "$(code_of post)" "403:000" "... a plain POST gets 403"
is "$(code_of postc)" "200:200" "... a POST inside a CONNECT tunnel is not the proxy's to see"
net_fence http tcp:8001 tcp:8002
ok "the remote host logged the GET" grep -qF "GET /hello?t=get HTTP/1.1" "$T/rl.step"
nok "the remote host logged no plain POST" grep -qF "t=post HTTP" "$T/rl.step"
ok "the remote host logged the tunnelled POST" grep -qF "POST /hello?t=postc HTTP/1.1" "$T/rl.step"
nok "the remote host logged no connection to 8001 or 8002" grep -qF "tcp 800" "$T/rl.step"
denials_are 3 "methods: denials counts the two port refusals and the POST"

# --- nothing else reachable directly --------------------------------------
{
	curl_line direct "--noproxy '*'" "http://$R4:8080/hello?t=direct"
	echo "python3 netc.py tcp,d1,$R4,8080 tcp,d2,$NET_REMOTE6,8001 udp,d3,$R4,7007 \
tcp,d4,127.0.0.1,$HL_TCP tcp,d5,::1,$HL_TCP tcp,d6,$NET_LOCAL4,$HL_TCP gai,g,direct-$$.$D \
dnsq,q,$R4,raw-direct-$$.$D"
} >"$NETWD/direct.sh"
rl_mark
hl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW -- sh direct.sh
is_status 0 "direct: the script ran"
like "$(code_of direct)" "000" "curl with --noproxy '*' gets no answer"
net_fence http tcp:8001 udp dns hltcp
is "$(cat "$T/rl.step")" "" "the remote host logged nothing (HTTP, TCP over IPv4 and IPv6, UDP, DNS)"
is "$(cat "$T/hl.step")" "" "this machine's listener logged nothing (127.0.0.1, ::1, its own address)"
for k in d1 d2 d3 d4 d5 d6; do
	# d4 and d5 are loopback: under namespaces the jail's own, where
	# nothing listens.
	case $SBX_BACKEND,$k in
	namespaces,d4 | namespaces,d5) want=ECONNREFUSED ;;
	*) want=EACCES ;;
	esac
	is "$(res_of "$k")" "$want" "direct attempt $k: $want (second opinion)"
done
unlike "$(res_of g)" OK "no resolver inside: a name does not resolve"
diag "$(sed -n 's/^[RC]://p' "$T/out" | tr '\n' ' ')"

done_testing
