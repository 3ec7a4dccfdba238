#!/bin/sh
# Pump the Update Pack broadcast engine once; cron runs this every minute.
#
# Usage: pump.sh [-q] [CONFIG]    (CONFIG defaults to $HOME/.update_pack_pump.conf)
#
# CONFIG holds two lines and must be readable by you only (chmod 600):
#   URL=https://bot.example.com/internal/pump
#   TOKEN=<the app's PUMP_TOKEN>
#
# The token reaches curl through `--config -` on standard input (a here-document
# the shell writes itself), never through argv, so `ps` shows no secret.
# Runs never overlap: flock on CONFIG.lock, or a mkdir lock where flock is missing.
# Exit status: 0 pumped (or skipped: a previous run still holds the lock),
# 1 the endpoint failed (curl error or a non-2xx answer), 2 bad configuration.
# -q prints nothing on success; failures always go to stderr.

set -u
umask 077

quiet=0
case ${1:-} in -q|--quiet) quiet=1; shift ;; esac
conf=${1:-${UPDATE_PACK_PUMP_CONF:-${HOME:-}/.update_pack_pump.conf}}

say() { printf '%s pump: %s\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$*"; }
die() { code=$1; shift; say "$*" >&2; exit "$code"; }
skip() { [ "$quiet" = 1 ] || say "a previous run still holds the lock; skipped" >&2; exit 0; }

[ -f "$conf" ] || die 2 "config file $conf not found (lines URL=... and TOKEN=..., chmod 600)"
# Characters 5-10 of the mode are the group's and others' permissions.
case $(ls -ln "$conf" | cut -c5-10) in
  ------) ;;
  *) die 2 "$conf can be read by other users; run: chmod 600 $conf" ;;
esac

url='' token=''
cr=$(printf '\r')
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%"$cr"}  # files edited in a Windows editor or cPanel's File Manager
  case $line in
    URL=*) url=${line#URL=} ;;
    TOKEN=*) token=${line#TOKEN=} ;;
  esac
done < "$conf"

case $url in
  http://*|https://*) ;;
  *) die 2 "URL= in $conf must be the full http(s) address of /internal/pump" ;;
esac
case $url in *token=*) die 2 "put the token on the TOKEN= line of $conf, not in URL=" ;; esac
[ -n "$token" ] || die 2 "TOKEN= in $conf is empty"
# Double quotes and backslashes would need escaping inside curl's config syntax.
case $url$token in *'"'*|*'\'*) die 2 "URL and TOKEN in $conf may not contain \" or \\" ;; esac

stale_lockdir() {
  holder=$(cat "$lockdir/pid" 2>/dev/null) || holder=''
  if [ -n "$holder" ]; then
    ! kill -0 "$holder" 2>/dev/null
    return
  fi
  # No pid yet: the holder may have just created it; only an old directory is stale.
  [ -n "$(find "$lockdir" -prune -mmin +2 2>/dev/null)" ]
}

if command -v flock >/dev/null 2>&1; then
  exec 9>"$conf.lock" || die 2 "cannot open the lock file $conf.lock"
  flock -n 9 || skip
else
  lockdir=$conf.lockdir
  if ! mkdir "$lockdir" 2>/dev/null; then
    stale_lockdir || skip
    rm -rf "$lockdir"
    mkdir "$lockdir" 2>/dev/null || skip
  fi
  echo $$ > "$lockdir/pid"
  trap 'rm -rf "$lockdir"' EXIT
  trap 'exit 1' HUP INT TERM
fi

out=$(curl --silent --show-error --connect-timeout 10 --max-time 62 \
  --user-agent update-pack-pump/1 --request POST --data '' \
  --write-out '\n%{http_code}' --config - <<EOF
url = "$url"
header = "Authorization: Bearer $token"
EOF
)
rc=$?
status=$(printf '%s\n' "$out" | tail -n 1)
body=$(printf '%s\n' "$out" | sed '$d')

[ "$rc" -eq 0 ] || die 1 "curl failed with exit code $rc calling $url"
case $status in
  2??) [ "$quiet" = 1 ] || say "HTTP $status $body" ;;
  *) die 1 "HTTP $status from $url (redirects are not followed): $(printf '%.300s' "$body")" ;;
esac
