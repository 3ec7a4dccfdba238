#!/usr/bin/env bash
# Every benchmark, one after the other; each figure is printed under the command that produced it.
#   bash bench/run_all.sh            quick: SQLite only, small sizes, about 5 minutes (a check that all run)
#   bash bench/run_all.sh --full     the figures in docs/PERFORMANCE.md: MariaDB at 127.0.0.1:3306 (see
#                                    bench/README.md), about 2 hours, 25 minutes of it the 40,000-user cron drain
# Tables go to stdout, JSON to bench/results/ (git-ignored). PYTHON=path overrides .venv/bin/python.
# Run it on a quiet machine: the figures are rates and latencies.
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
FULL=0
[ "${1:-}" = "--full" ] && FULL=1
failed=()

run() {
  echo
  echo "=== \$ $PY -m $*"
  "$PY" -m "$@" || failed+=("$*")
}

if [ "$FULL" = 1 ]; then
  # Free broadcasts at 20/80/150 ms against the naive loop, the loop with sleep-on-429 and PTB's limiter.
  run bench.throughput --db mariadb --users 750
  # Arrival jitter ± 25 %, and where 429s start for evenly spaced sends.
  run bench.throughput --db mariadb --users 600 --latencies 20 80 150 --jitter 0.25 --senders engine
  run bench.throughput --db mariadb --users 600 --latencies 300 --jitter 0.25 --senders engine --concurrency 12
  run bench.throughput --bound --latencies 20 80 150 300 --jitter 0.25 --users 600 --runs 100
  # Statements and queries per message, connections (a 300-recipient run, then a longer one).
  run bench.throughput --db sqlite --users 300 --senders engine
  run bench.throughput --db mariadb --users 300 --senders engine
  run bench.throughput --db sqlite --users 1500 --latencies 80 --senders engine
  run bench.throughput --db mariadb --users 1500 --latencies 80 --senders engine
  # Paid broadcasts: the default 900/s, then 1000/s; a tracked link's cost.
  run bench.paid --db both --users 3000
  run bench.paid --db both --users 10000 --rate 1000
  run bench.paid --db both --users 5000 --tracking off on
  # Cron: items per tick, then the 40,000-user drain.
  run bench.cron_regime --db mariadb --ticks 3
  run bench.cron_regime --db mariadb --drain 40000
  # /start during a broadcast, the engine and PTB's limiter as the broadcaster.
  run bench.budget_burst --db mariadb --broadcaster engine ptb
  run bench.budget_burst --db sqlite --broadcaster engine
  # Click redirects during a broadcast.
  run bench.clicks --db both --clicks 500 --threads 20
  # Black-box queries per message: broadcast create + one broadcast pump beside an idle web app.
  run bench.blackbox_queries --db mariadb --runs 3 --register webhook
  # 10k / 100k / 1M users: population, webhook, admin reads, pump cost, export, purge.
  run bench.scale --db mariadb --sizes 10000 100000 1000000
  run bench.scale --db sqlite --sizes 10000 100000 1000000
  # Saved segments at 1M users: counts and populations; the results picture of a 100,000-item job.
  run bench.segments --db mariadb --users 1000000
  run bench.results_picture --db both --rows 100000
else
  run bench.throughput --db sqlite --users 200
  run bench.throughput --db sqlite --users 300 --latencies 150 --jitter 0.25 --senders engine
  run bench.throughput --bound --latencies 20 80 150 300 --jitter 0.25 --users 600 --runs 30
  run bench.paid --db sqlite --users 3000 --tracking off on
  run bench.cron_regime --db sqlite --ticks 2 --tick-seconds 12 --pump-seconds 10
  run bench.budget_burst --db sqlite --users 600 --starts 100
  run bench.clicks --db sqlite --users 600 --clicks 200 --threads 10
  run bench.blackbox_queries --db sqlite --users 300 --idle 2
  run bench.scale --db sqlite --sizes 10000 100000
  run bench.segments --db sqlite --users 20000 --repeat 1
  run bench.results_picture --db sqlite --rows 5000
  run bench.compare HEAD HEAD --trials 1 --db sqlite --users 100 --latencies 80 --paid-users 1000 --cron-seconds 5
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "all benchmarks ran; JSON in bench/results/"
