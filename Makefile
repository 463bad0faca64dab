# Searchlight: the two commands of the README.
#   make demo   builds Searchlight and runs a tour over the bundled sample data
#   make test   builds with warnings as errors and runs the whole test suite
SWIFT ?= swift

.PHONY: demo test build deps clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

demo: build
	.build/release/searchlight demo

test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
