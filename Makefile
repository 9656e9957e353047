# vitcourse: two commands, `make lab` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
TORCH  ?= torch==2.13.0
# A pip index for torch only, e.g. TORCH_INDEX=https://download.pytorch.org/whl/cu130 for a CUDA build (GPU job).
TORCH_INDEX ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))
# Each notebook's py:percent text source (jupytext.toml): the file to edit and review.
SOURCES   := $(NOTEBOOKS:.ipynb=.py)

.PHONY: experiments lab learner relearn test unit nbval lint format sync execute models student book test-browser browser-if-present clean-venv help

help:
	@echo "make lab      - create .venv if needed, make learner copies of the notebooks in learner/ (once: your"
	@echo "               work there is never overwritten), then open JupyterLab on learner/00_start_here.ipynb"
	@echo "make relearn NB=04_attention - a fresh learner copy of one notebook (the old one goes to learner/.backup/)"
	@echo "               (options for JupyterLab: make lab LAB_ARGS=\"--port=8899 --no-browser\")"
	@echo "make test     - create .venv if needed, then ruff, unit tests and strict nbval over every notebook"
	@echo "make execute  - re-run every notebook in place in a fresh kernel on the CPU (refreshes stored outputs)"
	@echo "make format   - format the code and the notebook sources with ruff, then sync the notebooks"
	@echo "make sync     - copy the notebook sources (notebooks/NN_*.py) into the .ipynb files, outputs kept"
	@echo "make models   - re-train the shipped models (vitcourse/assets/checkpoints/) from their fixed seeds"
	@echo "make experiments - re-run the data-scale sweep, masked-patch pre-training and rows/columns runs"
	@echo "make student  - build student copies of the notebooks (no solutions) into student/"
	@echo "make book     - build the course website into _build/html/ (from the stored outputs; nothing runs)"
	@echo "make test-browser - run every notebook and widget in JupyterLab in headless Chromium, and check the website"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The stamp depends on pyproject.toml: change the dependencies and the next make re-installs.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install "$(TORCH)" $(if $(TORCH_INDEX),--index-url "$(TORCH_INDEX)")
	$(BIN)/python -m pip install -e ".[dev]"
	touch $(STAMP)

# JupyterLab reads jupyter/ first (JUPYTER_CONFIG_PATH): no news question, no update checks (see
# jupyter/jupyter_lab_config.py). Options for JupyterLab go in LAB_ARGS, e.g. LAB_ARGS="--port=8899 --no-browser".
# As root (containers, cloud notebooks) JupyterLab refuses to start without --allow-root, so it is added there.
LAB_ARGS ?=
BOOK_REPOSITORY ?=

# Learner copies (vitcourse/classroom.py, "Learner copies"): no stored outputs, worked solutions collapsed, no
# grading cells. Made once per notebook; an existing copy is the learner's work and is never overwritten.
# LEARNER names another folder for the copies (the tests use a temporary one).
LEARNER ?= learner
learner: $(STAMP)
	@$(BIN)/python -m vitcourse.classroom --learner --learner-dir "$(LEARNER)"

NB ?=
relearn: $(STAMP)
	@if [ -z "$(NB)" ]; then echo "make relearn: name the notebook, e.g. make relearn NB=04_attention"; exit 2; fi
	$(BIN)/python -m vitcourse.classroom --learner --learner-dir "$(LEARNER)" --rebuild \
		notebooks/$(basename $(notdir $(NB))).ipynb

lab: learner
	@if [ "$$(id -u)" = 0 ]; then \
		echo "make lab: running as root (a container or a cloud notebook?), so JupyterLab gets --allow-root: without it, it refuses to start as root"; \
		root=--allow-root; else root=; fi; \
	JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
		exec $(BIN)/jupyter lab $$root $(LAB_ARGS) "$(LEARNER)/00_start_here.ipynb"

# The forge workflows are validated against GitHub's workflow schema, which check-jsonschema vendors (no download).
lint: $(STAMP)
	$(BIN)/ruff check vitcourse tests notebooks book
	$(BIN)/ruff format --check vitcourse tests notebooks book
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

format: $(STAMP)
	$(BIN)/ruff check --fix vitcourse tests notebooks book
	$(BIN)/ruff format vitcourse tests notebooks book
	$(MAKE) --no-print-directory sync

# The .py source wins: its cells replace the notebook's inputs; the stored outputs stay until `make execute`.
# (tests/test_notebook_sources.py fails when a pair disagrees.)
sync: $(STAMP)
	$(BIN)/jupytext --quiet --to ipynb --update $(SOURCES)

# Two workers (pytest-xdist), a test file each at a time: nbgrader's autograde waits on its own subprocess while
# the other worker goes on with the rest.
unit: $(STAMP)
	$(BIN)/python -m pytest tests -q -n 2 --dist loadfile --durations=10

# Strict nbval: every stored output must come out the same. CUDA_VISIBLE_DEVICES is left alone so GPU
# runners test the GPU path; MPLBACKEND is never set (figures would vanish from the outputs).
nbval: $(STAMP)
	$(BIN)/python -m pytest --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg \
		-p no:cacheprovider notebooks -q

# The browser suite needs Debian's Chromium (.ci/run installs it); without it, make test says so and goes on.
CHROMIUM ?= /usr/bin/chromium

# ruff and the website build side by side (-j2); then three independent parts run side by side (-j3): the unit tests, strict nbval
# and the browser suite; each part's output is printed when it ends (--output-sync). Every process gets one
# OpenMP thread (below), so the parts share two cores without torch's threads spinning against each other; the
# browser suite spends much of its time waiting on the page, which the other two fill (book/pages/testing.md).
test: $(STAMP)
	$(MAKE) --no-print-directory -j2 --output-sync=recurse lint book
	$(MAKE) --no-print-directory -j3 --output-sync=recurse unit nbval browser-if-present

# One OpenMP thread per process for the checks and for `make execute`: two torch processes with two threads each
# slow each other about tenfold on two cores (book/pages/troubleshooting.md), and strict nbval then compares
# outputs made with the same setting as the stored ones. `make lab` keeps torch's default (all cores).
test unit nbval test-browser browser-if-present execute models experiments: export OMP_NUM_THREADS := 1

# The course website (Sphinx + MyST-NB, see book/build.py): one page per notebook with its stored outputs, the
# course map as home page, TEACHING.md and book/pages/ (the README's long sections), search; explorers as still
# pictures. BOOK_REPOSITORY=URL adds Binder buttons.
book: $(STAMP)
	BOOK_REPOSITORY="$(BOOK_REPOSITORY)" $(BIN)/python book/build.py

browser-if-present: $(STAMP)
	@if [ -x "$(CHROMIUM)" ]; then $(MAKE) --no-print-directory test-browser; \
	else echo "browser tests skipped: no Chromium at $(CHROMIUM) (apt-get install chromium, then make test-browser)"; fi

# JupyterLab + Chromium: every notebook run in the browser, every widget moved; screenshots in screenshots/.
test-browser: $(STAMP)
	VITCOURSE_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest tests/browser -v -p no:cacheprovider --durations=10

# Re-run every notebook in place in a fresh kernel, on the CPU, so stored outputs are produced by the code.
execute: sync
	for nb in $(NOTEBOOKS); do \
		CUDA_VISIBLE_DEVICES= $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
			--ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=600 \
			--ExecutePreprocessor.record_timing=False $$nb || exit 1; \
	done

# The shipped checkpoints the notebooks look inside: trained from fixed seeds (CUDA when present, else the CPU),
# evaluated on the CPU, written into vitcourse/assets/checkpoints/. All nine take about an hour on a 2-core CPU
# (book/pages/shipped_models.md); `python -m vitcourse.train --shipped NAME ...` re-makes some.
models: $(STAMP)
	$(BIN)/python -m vitcourse.train --shipped

# The experiments behind notebook 14's data-scale figure, 13's pre-training figures and 12's rows and columns
# (vitcourse/datascale.py): every run from its fixed seed in JOBS worker processes (CUDA when present, else the
# CPU, one thread each), sorted into vitcourse/assets/experiments/*.json; the pre-trained encoders go to
# vitcourse/assets/checkpoints/vit_mpp_seed*.pt, the rows-and-columns models to vit_sky_seed*.pt. Then the
# first steps of the cheapest sweep run and of pre-training on the CPU, which the tests re-run on any machine.
# PARTS picks any subset: sweep (the data-scale sweep, DeiT and its teachers included), deit (DeiT and its teachers
# alone), controls (its ViT on raw and per-channel inputs), pretrain,
# finetune, rowcol; and, not among the defaults, swap_sweep and sweep_long (the earlier swap sweep and its
# control), pretrain_tries (higher mask ratios), rowcol_short (the plain-sky runs of 6,000 steps). The time each
# part took, and on which device: book/pages/experiments.md.
JOBS ?= 2
PARTS ?= sweep controls pretrain finetune rowcol
EXPERIMENT_LOG ?= build/experiments.jsonl
experiments: $(STAMP)
	mkdir -p $(dir $(EXPERIMENT_LOG)) && rm -f $(EXPERIMENT_LOG)
	$(BIN)/python -m vitcourse.datascale --jobs $(JOBS) --out $(EXPERIMENT_LOG) --part $(PARTS)
	$(BIN)/python -m vitcourse.datascale --assemble $(EXPERIMENT_LOG)
	$(BIN)/python -m vitcourse.datascale --first-steps

clean-venv:
	rm -rf $(VENV)

# Student copies: solutions replaced by stubs, outputs cleared, into student/ (ignored by git).
student: $(STAMP)
	$(BIN)/python -m vitcourse.classroom --out student
