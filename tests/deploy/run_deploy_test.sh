#!/bin/sh
# Deployment test: the bot behind Debian's Apache + Phusion Passenger, pumped by the
# cron line, on MariaDB, against the simulated Bot API. Needs root, the packages
#   apt-get install -y --no-install-recommends apache2 libapache2-mod-passenger python3-venv
# and MariaDB on 127.0.0.1:3306 (root without a password, or UPK_DEPLOY_MYSQL_USER /
# UPK_DEPLOY_MYSQL_PASSWORD). Options: --root DIR, --users N, --keep (see --help).
# Prints a JSON report; exit 0 = every check passed. See docs/DEPLOY_CPANEL.md.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# The orchestrator needs the project's packages (requests, PyMySQL, the simulator);
# the deployed app gets its own venv from /usr/bin/python3.
python=${UPK_DEPLOY_PYTHON:-}
if [ -z "$python" ]; then
  if [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
fi
exec "$python" -m tests.deploy.run_deploy_test "$@"
