/* configure's results as on macOS, for make check-darwin. */
#define PACKAGE_VERSION "0.0.0-darwin-check"
