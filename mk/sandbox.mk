# The sandbox API's own checks: the SUN arithmetic against AN12196 and every route over HTTP.
.PHONY: test-sandbox
test-sandbox: deps
	/usr/bin/python3 -m unittest discover -s tools/sandbox
