// cmark-gfm (CommonMark with GitHub's extensions), for `vault export`'s HTML.
// The core extensions (table, strikethrough, autolink, tasklist, tagfilter)
// live in a second library with its own header.
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
