# llmster — build, run, test, install, package.
# `make run` and `make test` install missing Debian packages first (checked with dpkg-query: a package removed
# but for its configuration files counts as missing; nothing is fetched when everything is present).

PREFIX   ?= /usr/local
SERVER   ?= $(or $(LLMSTER_SERVER),http://localhost:1234)
SWIFT    ?= swift
export PATH := $(PATH):/opt/swift/usr/bin

# Release builds link the Swift runtime in, so the binary (and the packages made from it) need no Swift.
# One product at a time: the test-support library cannot build against the static runtime.
RELEASE  = $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/Console/CLI/App.swift)
TARBALL  = dist/llmster-$(VERSION)-linux-$(shell uname -m).tar.gz
DEB      = dist/llmster_$(VERSION)_$(shell dpkg --print-architecture).deb
ifndef SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || date +%s)
endif
export SOURCE_DATE_EPOCH

BUILD_PACKAGES = pkg-config libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev \
                 libreadline-dev libsqlite3-dev libsodium-dev libpocketsphinx-dev libsource-highlight-dev libpcre2-dev libxml2-dev
TEST_PACKAGES  = emacs-nox elpa-markdown-mode elpa-package-lint elpa-vterm neovim sqlite3 pocketsphinx-en-us espeak-ng sox alsa-utils zsh fish
DIST_PACKAGES  = dpkg-dev binutils neovim
PACKAGE_TEST_PACKAGES = lintian

# Installs the Debian packages named in $(1) that dpkg does not already have.
define ensure_packages
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${db:Status-Status}\n' $$p 2>/dev/null | grep -qx installed || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "llmster: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

.PHONY: lint run build release deps test-deps test editor-tests package-test bench editor-bench stage dist install uninstall clean

deps:
	$(call ensure_packages,$(BUILD_PACKAGES))

# Everything `make test` uses, with one apt-get update: the build's packages, the tests', the packaging tools, lintian.
test-deps:
	$(call ensure_packages,$(BUILD_PACKAGES) $(TEST_PACKAGES) $(DIST_PACKAGES) $(PACKAGE_TEST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(RELEASE) --product llmster

# Starts llmster against $(SERVER); when no LM Studio answers there, against the built-in simulator. The build
# is quiet (its log in .build/run-build.log) unless it fails: the linker's notes are not a newcomer's first screen.
run: deps
	@echo "llmster: building (release)…"; mkdir -p .build; \
	$(RELEASE) --product llmster > .build/run-build.log 2>&1 || { cat .build/run-build.log; exit 1; }
	@bin=.build/release/llmster; \
	$$bin --server "$(SERVER)" doctor --quiet >/dev/null 2>&1; status=$$?; \
	if [ $$status -eq 3 ]; then \
	  echo "llmster: no LM Studio answers at $(SERVER): starting the built-in simulator (llmster --demo)."; \
	  exec $$bin --demo; \
	else \
	  echo "llmster: using LM Studio at $(SERVER)."; \
	  exec $$bin --server "$(SERVER)"; \
	fi

# Tests run in parallel. The waits on child processes, terminals and pipes run on threads of their own, not on
# Swift concurrency's few pool threads, and suites marked .spawnsProcesses take one of a few slots (five per core, at
# most 32; LLMSTER_TEST_PROCESS_SLOTS=N overrides), so the children are not starved into timeouts. A run that hangs is
# stopped after 20 minutes.
test: test-deps lint
	$(SWIFT) build --build-tests
	@timeout -k 10 1200 $(SWIFT) test --skip-build; status=$$?; 	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then echo "llmster: the test run did not finish in 20 minutes and was stopped" >&2; fi; 	exit $$status
	$(MAKE) --no-print-directory editor-tests
	$(MAKE) --no-print-directory package-test

# The Swift sources as swift-format (in the toolchain) lays them out under the checked-in .swift-format; a
# warning fails. `swift format format -i -r -p Sources Tests Package.swift` fixes what it reports.
lint:
	$(SWIFT) format lint --strict -r -p Sources Tests Package.swift

# The Emacs (ERT) and Neovim (headless Lua) suites, against the built llmster rpc and lmstudio-sim, all at once
# (contrib/editor-suites). The ERT suite runs twice: chat buffers in text-mode, then in markdown-mode.
editor-tests: test-deps
	@contrib/editor-suites "$$($(SWIFT) build --show-bin-path)"

# The .deb and the tarball, checked as a user gets them: contents, Depends against ldd, lintian, and the
# extracted llmster (no Swift anywhere) against the simulator, from the shell, Emacs and Neovim.
package-test: test-deps build dist
	$(call ensure_packages,$(PACKAGE_TEST_PACKAGES))
	contrib/debian/test-package $(DEB) $(TARBALL) $$($(SWIFT) build --show-bin-path)

# Start-up of the packaged binary beside the release build, then the other sections.
bench: dist
	$(RELEASE) --product lmstudio-sim && $(RELEASE) --product llmster-bench
	LLMSTER_PACKAGED=.build/package/debian/llmster/usr/bin/llmster .build/release/llmster-bench

# The editors side by side on the release build: a 500 KB reply streamed into a chat, reopening it, and (Emacs)
# typing after it. Figures only, no goals asserted.
editor-bench: test-deps
	$(RELEASE) --product llmster && $(RELEASE) --product lmstudio-sim
	@markdown=$$(echo /usr/share/emacs/site-lisp/elpa/markdown-mode-*); \
	LLMSTER_BIN_DIR=.build/release timeout 600 emacs --batch -Q -L $$markdown -l markdown-mode -L contrib/emacs -l llmster \
	  -l contrib/emacs/test/llmster-stream-bench.el && \
	LLMSTER_BIN_DIR=.build/release timeout 600 emacs --batch -Q -L $$markdown -l markdown-mode -L contrib/emacs -l llmster \
	  -l contrib/emacs/test/llmster-typing-bench.el && \
	LLMSTER_BIN_DIR=.build/release timeout 600 nvim --headless -u NONE -i NONE --cmd 'set rtp^=contrib/nvim' \
	  -c 'luafile contrib/nvim/test/stream_bench.lua'

# The installed tree in $(STAGE)$(PREFIX), from the release build, and the list of its files
# (share/llmster/installed-files): the one description of what goes where, from which install,
# uninstall, the tarball and the .deb are made. The plugin's doc/tags, unless shipped, is made with nvim
# (`make dist` installs it; without it `make install` leaves :helptags to the user).
STAGE ?= .build/package/install
ROOT   = $(abspath $(STAGE))$(PREFIX)
ZSH_COMPLETIONS = share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
NVIM_PLUGIN     = share/nvim/site/pack/llmster/start/llmster
stage:
	@test -x .build/release/llmster || { echo "llmster: no release build (make release)" >&2; exit 1; }
	rm -rf $(STAGE)
	install -D -m 0755 .build/release/llmster $(ROOT)/bin/llmster && strip --remove-section=.comment $(ROOT)/bin/llmster
	for page in man/*.[157]; do dir=$(ROOT)/share/man/man$${page##*.}; \
	  install -D -m 0644 $$page $$dir/$${page##*/} && gzip -9n $$dir/$${page##*/} || exit 1; done
	install -D -m 0644 share/completions/llmster.bash $(ROOT)/share/bash-completion/completions/llmster
	install -D -m 0644 share/completions/_llmster $(ROOT)/$(ZSH_COMPLETIONS)/_llmster
	install -D -m 0644 share/completions/llmster.fish $(ROOT)/share/fish/vendor_completions.d/llmster.fish
	cd share && find . -path ./completions -prune -o -type f -exec install -D -m 0644 {} $(ROOT)/share/llmster/{} \;
	for file in contrib/emacs/*.el; do install -D -m 0644 $$file $(ROOT)/share/emacs/site-lisp/llmster/$${file##*/} || exit 1; done
	cd contrib/nvim && find . -path ./test -prune -o -type f -exec install -D -m 0644 {} $(ROOT)/$(NVIM_PLUGIN)/{} \;
	test -f $(ROOT)/$(NVIM_PLUGIN)/doc/tags || ! command -v nvim >/dev/null || \
	  nvim --headless -u NONE -i NONE -c 'helptags $(ROOT)/$(NVIM_PLUGIN)/doc' -c q
	mkdir -p $(ROOT)/share/doc/llmster && { cat contrib/debian/copyright; echo; echo 'License: MIT'; \
	  sed -n '/^Permission/,$$p' LICENSE | sed 's/^$$/./; s/^/ /'; } > $(ROOT)/share/doc/llmster/copyright
	cd $(ROOT) && files=$$(find . -type f -printf '%P\n') && \
	  printf '%s\n' $$files share/llmster/installed-files | LC_ALL=C sort > share/llmster/installed-files
	echo "llmster: staged $(ROOT)"
.SILENT: stage

dist: deps
	$(call ensure_packages,$(DIST_PACKAGES))
	$(RELEASE) --product llmster
	@$(MAKE) --no-print-directory stage STAGE=.build/package/tar PREFIX=/usr/local
	@$(MAKE) --no-print-directory stage STAGE=.build/package/debian/llmster PREFIX=/usr
	mkdir -p dist && tar -C .build/package/tar/usr/local --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) \
	  --no-recursion -czf $(TARBALL) -T .build/package/tar/usr/local/share/llmster/installed-files
	contrib/debian/build-deb .build/package $(VERSION) $(DEB)

install: deps
	$(RELEASE) --product llmster
	@$(MAKE) --no-print-directory stage PREFIX=$(PREFIX)
	install -d $(DESTDIR)$(PREFIX)
	cp -R .build/package/install$(PREFIX)/. $(DESTDIR)$(PREFIX)/

# Removes the files `make install` listed, then the directories of llmster's own that are left empty.
uninstall:
	@list=$(DESTDIR)$(PREFIX)/share/llmster/installed-files; \
	test -f $$list || { echo "llmster: nothing to uninstall ($$list is missing)" >&2; exit 1; }; \
	cd $(DESTDIR)$(PREFIX) && files=$$(cat share/llmster/installed-files) && rm -f $$files && \
	for file in $$files; do dir=$${file%/*}; \
	  while case /$$dir/ in */llmster/*) rmdir $$dir 2>/dev/null;; *) false;; esac; do dir=$${dir%/*}; done; done

clean:
	rm -rf .build dist
