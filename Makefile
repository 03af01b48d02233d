# Each target installs what is missing, then does its job. Safe to re-run.
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
APT_STAMP := $(VENV)/.system-packages

.PHONY: demo test bench serve install system-packages clean

demo: install
	$(PY) -m browx_actors.demo

test: install
	$(PY) -m ruff check browx_actors tests benchmarks
	$(PY) -m mypy browx_actors
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q

bench: install
	$(PY) -m benchmarks

serve: install
	$(VENV)/bin/browx-actors serve

install: $(STAMP) $(APT_STAMP)

$(PY):
	python3 -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian's chromium and adb, installed only when absent (as root; no sudo on CI).
$(APT_STAMP): $(PY)
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v adb >/dev/null 2>&1 || missing="$$missing adb"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@command -v chromium >/dev/null 2>&1 || { echo "chromium is still missing" >&2; exit 1; }
	@command -v adb >/dev/null 2>&1 || { echo "adb is still missing" >&2; exit 1; }
	touch $(APT_STAMP)

clean:
	rm -rf $(VENV) .browx .pytest_cache
