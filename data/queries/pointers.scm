; Broadcasting subscripts that make a pointer expression 2D or more:
; offs[:, None], offs[None, :], offs[:, :, None]. One capture per None.
(subscript
  value: (_) @value
  subscript: (none) @none) @broadcast
