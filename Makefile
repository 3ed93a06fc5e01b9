# llmster — build, run, test, install.
# `make run` and `make test` install missing Debian packages first (checked with dpkg -s,
# so nothing is fetched when everything is present).

PREFIX   ?= /usr/local
SERVER   ?= $(or $(LLMSTER_SERVER),http://localhost:1234)
SWIFT    ?= swift
export PATH := $(PATH):/opt/swift/usr/bin

BUILD_PACKAGES = pkg-config libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev \
                 libreadline-dev libsqlite3-dev libsodium-dev libpocketsphinx-dev libsource-highlight-dev
TEST_PACKAGES  = emacs-nox elpa-markdown-mode elpa-package-lint neovim sqlite3 pocketsphinx-en-us espeak-ng sox alsa-utils zsh fish

# Installs the Debian packages named in $(1) that dpkg does not already have.
define ensure_packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "llmster: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

.PHONY: run build release deps test-deps test editor-tests bench install clean

deps:
	$(call ensure_packages,$(BUILD_PACKAGES))

test-deps: deps
	$(call ensure_packages,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Starts llmster against $(SERVER); when no LM Studio answers there, against the built-in simulator.
run: release
	@bin=$$($(SWIFT) build -c release --show-bin-path)/llmster; \
	$$bin --server "$(SERVER)" doctor --quiet >/dev/null 2>&1; status=$$?; \
	if [ $$status -eq 3 ]; then \
	  echo "llmster: no LM Studio answers at $(SERVER): starting the built-in simulator (llmster --demo)."; \
	  exec $$bin --demo; \
	else \
	  echo "llmster: using LM Studio at $(SERVER)."; \
	  exec $$bin --server "$(SERVER)"; \
	fi

# Tests run one at a time: on a 2-core machine Swift concurrency's pool has two threads, and tests that
# wait on child processes would otherwise compete for them. A run that hangs is stopped after 20 minutes.
test: test-deps
	$(SWIFT) build --build-tests
	@timeout -k 10 1200 $(SWIFT) test --skip-build --no-parallel; status=$$?; 	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then echo "llmster: the test run did not finish in 20 minutes and was stopped" >&2; fi; 	exit $$status
	$(MAKE) --no-print-directory editor-tests

# The Emacs (ERT) and Neovim (headless Lua) suites, against the built llmster rpc and lmstudio-sim.
# The ERT suite runs twice: chat buffers in text-mode, then in markdown-mode (whose font-lock must not undo folds).
editor-tests: test-deps
	@bin=$$($(SWIFT) build --show-bin-path); markdown=$$(echo /usr/share/emacs/site-lisp/elpa/markdown-mode-*); \
	for with in "" "-L $$markdown -l markdown-mode"; do \
	  LLMSTER_BIN_DIR=$$bin timeout -k 10 300 emacs --batch -Q $$with -l contrib/emacs/llmster.el -l contrib/emacs/test/llmster-test.el \
	    -f ert-run-tests-batch-and-exit || exit 1; done && \
	LLMSTER_BIN_DIR=$$bin timeout -k 10 300 emacs --batch -Q -l contrib/emacs/test/llmster-comint-test.el -f ert-run-tests-batch-and-exit && \
	LLMSTER_BIN_DIR=$$bin timeout -k 10 300 nvim --headless -u NONE -i NONE --cmd 'set rtp^=contrib/nvim' -c 'luafile contrib/nvim/test/llmster_spec.lua'

bench: deps
	$(SWIFT) build -c release
	$$($(SWIFT) build -c release --show-bin-path)/llmster-bench

install: release
	@bin=$$($(SWIFT) build -c release --show-bin-path); \
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/man/man5" \
	           "$(DESTDIR)$(PREFIX)/share/man/man7" "$(DESTDIR)$(PREFIX)/share/llmster"; \
	install -m 0755 "$$bin/llmster" "$$bin/lmstudio-sim" "$(DESTDIR)$(PREFIX)/bin/"; \
	for page in man/*.[157]; do [ -f "$$page" ] || continue; \
	  install -m 0644 "$$page" "$(DESTDIR)$(PREFIX)/share/man/man$${page##*.}/"; done; \
	cp -R share/. "$(DESTDIR)$(PREFIX)/share/llmster/"

clean:
	rm -rf .build
