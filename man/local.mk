# Man pages: written by hand in roff; the version is substituted at build time.
man_MANS += man/atoll-topo.8 man/atoll-fabric.5 man/atoll-place.1 man/atoll.8 man/atoll-widen.8
EXTRA_DIST += man/atoll-topo.8.in man/atoll-fabric.5.in man/atoll-place.1.in man/atoll.8.in man/atoll-widen.8.in
CLEANFILES += man/atoll-topo.8 man/atoll-fabric.5 man/atoll-place.1 man/atoll.8 man/atoll-widen.8
man/%: man/%.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && sed -e 's|[@]VERSION[@]|$(PACKAGE_VERSION)|g' $< > $@
