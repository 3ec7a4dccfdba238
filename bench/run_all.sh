#!/usr/bin/env bash
# Run every benchmark with quick defaults (about 10 minutes), or --full (about 60 minutes).
# Tables go to stdout, JSON to bench/results/ (git-ignored).
#   bash bench/run_all.sh            quick
#   bash bench/run_all.sh --full     the figures in docs/PERFORMANCE.md
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
FULL=0
[ "${1:-}" = "--full" ] && FULL=1
failed=()

run() {
  echo
  echo "=== $*"
  "$PY" -m "$@" || failed+=("$1")
}

if [ "$FULL" = 1 ]; then
  run bench.throughput --db mariadb --users 750 --alt-max-seconds 200
  run bench.throughput --db sqlite --users 750 --senders engine --tag free-sqlite
  run bench.paid --db both --users 5000 --profile
  run bench.http_clients --calls 3000
  run bench.engine_ceiling --db both --items 5000
  run bench.population --db both --users 100000 --repeat 3
  run bench.export_ledger --db both --rows 200000
  run bench.cron_regime --db mariadb --ticks 3 --tick-seconds 60 --pump-seconds 57
  run bench.budget_burst --db mariadb --broadcaster engine engine-alone ptb
  run bench.shared_budget --db both
  run bench.webhook_load --db mariadb --updates 2000 --threads 16 --profile
  run bench.webhook_load --db mariadb --updates 500 --threads 2
  run bench.clicks --db both --clicks 500 --threads 20
  run bench.engine_ceiling --db both --transport null --batch 100 --concurrency 16 --tracking off on
  run bench.paid --db both --users 5000 --tracking off on
  # What-ifs behind the recommendations in docs/PERFORMANCE.md (engine unchanged; see bench/whatif.py).
  run bench.throughput --db mariadb --users 750 --senders ptb --ptb-max-retries 3 --tag ptb-retries
  run bench.throughput --db mariadb --users 500 --latencies 150 --senders engine --concurrency 6
  run bench.whatif_late_slots --tolerance-ms 10 --db mariadb --users 750
  run bench.whatif_late_slots --tolerance-ms 10 --db mariadb --users 750 --latencies 150 --concurrency 6
  run bench.paid --db mariadb --users 5000 --client default --burst 10
  run bench.paid --db mariadb --users 5000 --client httpclient --burst 10
  run bench.paid --db mariadb --users 5000 --client httpclient --burst 10 --concurrency 64
else
  run bench.throughput --db sqlite --users 300
  run bench.paid --db both --users 5000
  run bench.http_clients --calls 1000
  run bench.engine_ceiling --db both --items 1500
  run bench.population --db both --users 100000 --repeat 1
  run bench.export_ledger --db both --rows 50000
  run bench.cron_regime --db sqlite --ticks 3 --tick-seconds 12 --pump-seconds 10
  run bench.budget_burst --db mariadb --users 600 --starts 100
  run bench.webhook_load --db mariadb --updates 1000 --threads 16
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all benchmarks ran; JSON in bench/results/"
