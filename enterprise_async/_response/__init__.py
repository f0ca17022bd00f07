"""Reading an answer: the answer as received and its body as data (``responses``), what it makes,
a result or the typed error of its status (``answer``), and the server's own words in an error
body (``error_detail``)."""
