# Searchlight: the two commands of the README.
#   make demo   builds Searchlight and runs a tour over the bundled sample data
#   make test   builds with warnings as errors and runs the whole test suite, then the browser
#               test of `serve`'s page (headless Chromium; required under CI=true) and the example
#   make example builds and runs Examples/LibraryTour, an app that uses only the public API
#   make fuzz   builds the libFuzzer harnesses (Tests/Fuzz) and runs each for FUZZ_SECONDS
#   make man    writes docs/searchlight.1 and the bash, zsh and fish completions under docs/
SWIFT ?= swift

.PHONY: demo test build deps clean fuzz example man

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

demo: build
	.build/release/searchlight demo

test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build
	python3 scripts/browser-test.py
	$(MAKE) example

example: deps
	cd Examples/LibraryTour && $(SWIFT) build -Xswiftc -warnings-as-errors && ./.build/debug/LibraryTour

clean:
	rm -rf .build

# The man page and completions, generated from the command table and help text.
man: deps
	$(SWIFT) build --product searchlight
	mkdir -p docs/completions
	.build/debug/searchlight man > docs/searchlight.1
	.build/debug/searchlight completions bash > docs/completions/searchlight.bash
	.build/debug/searchlight completions zsh > docs/completions/_searchlight
	.build/debug/searchlight completions fish > docs/completions/searchlight.fish

FUZZ_SECONDS ?= 60

fuzz: deps
	cd Tests/Fuzz && for harness in FuzzQuery FuzzItems FuzzToolCall FuzzStageFile FuzzMCP FuzzFrontMatter; do \
	  $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product $$harness || exit 1; done
	python3 scripts/fuzz.py $(FUZZ_SECONDS)
