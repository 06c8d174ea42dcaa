"""New papers in: the sources a reader follows, fetching them from the arXiv API into the
library folder, and the arrivals index behind `is:new` (no Textual here).

`sources` (what `abstracts follow` accepts), `config` (config.toml), `client` (one polite
HTTP request at a time), `atom` (the API's pages in and the library's files out),
`fetch` (paging, resuming, storing), `library` (the folder, the arrivals index, the
paths opened by default).
"""
