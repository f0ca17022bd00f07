"""Reading an answer: its body, bounded, decoded and checked (``responses``), and the detail of an
error answer (``error_detail``)."""
