# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test clean

# The development venv: the app's requirements.txt plus requirements-dev.txt's tests and tools.
$(STAMP): requirements.txt requirements-dev.txt requirements-pictures.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $(STAMP)

## Run the whole product on SQLite against the simulated Bot API.
demo: $(STAMP)
	$(VENV)/bin/python -m app.demo $(ARGS)

## Run the test suite (SQLite by default; set TEST_DATABASE_URL for MariaDB): parallel, then serial.
test: $(STAMP)
	$(VENV)/bin/python -m tests.run_suite $(ARGS)

clean:
	rm -rf $(VENV) instance/demo.sqlite3
