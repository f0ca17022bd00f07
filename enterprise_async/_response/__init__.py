"""Reading an answer: what its status makes of it, a result or a typed error, and whether a lookup
answered the item asked for (``responses``); its body read into its result, bytes to model
(``model_reading``); and the detail of an error answer (``error_detail``)."""
