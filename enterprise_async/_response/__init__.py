"""Reading an answer: its body, bounded, decoded and checked (``responses``), its data read into its
model (``model_reading``), and the detail of an error answer (``error_detail``)."""
