; Plain assignments `name = value`, for resolving names the model meets later
; (config lists, grids, kernels wrapped by calls).
(assignment left: (identifier) @name right: (_) @value) @assign
