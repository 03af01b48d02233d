# Each target installs what is missing, then does its job. Safe to re-run.
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
APT_STAMP := $(VENV)/.system-packages
#: The npm peers (peers/package.json, pinned by its lockfile): the MCP Inspector's CLI,
#: Playwright MCP, chrome-devtools-mcp and the Node.js 22 they run on.
PEERS_STAMP := peers/node_modules/.installed

.PHONY: demo test bench serve install peers system-packages clean

demo: install
	$(PY) -m browx_actors.demo

test: install peers
	$(PY) -m ruff check browx_actors tests benchmarks peers
	$(PY) -m mypy browx_actors
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q

bench: install peers
	$(PY) -m benchmarks

serve: install
	$(VENV)/bin/browx-actors serve

install: $(STAMP) $(APT_STAMP)

# The tests and benchmarks also run the npm peers; the demo and the server do not.
peers: $(PEERS_STAMP)

$(PY):
	python3 -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian's chromium, firefox-esr, adb and npm, installed only when absent (as root; no sudo on CI).
$(APT_STAMP): $(PY)
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || missing="$$missing firefox-esr"; \
	command -v adb >/dev/null 2>&1 || missing="$$missing adb"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@command -v chromium >/dev/null 2>&1 || { echo "chromium is still missing" >&2; exit 1; }
	@command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || { echo "firefox-esr is still missing" >&2; exit 1; }
	@command -v adb >/dev/null 2>&1 || { echo "adb is still missing" >&2; exit 1; }
	@command -v npm >/dev/null 2>&1 || { echo "npm is still missing" >&2; exit 1; }
	touch $(APT_STAMP)

# npm install, not npm ci: mobile-mcp's mobilecli names platform packages the registry does
# not have (404), which npm ci counts as a lockfile out of sync; --no-save keeps the lock.
$(PEERS_STAMP): peers/package.json peers/package-lock.json $(APT_STAMP)
	npm install --prefix peers --no-save --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(PEERS_STAMP)

clean:
	rm -rf $(VENV) .browx .pytest_cache peers/node_modules
