; Assignments, for resolving names the model meets later (config lists,
; grids, kernels wrapped by calls). The code keeps those whose target is a
; plain name: spelling `left: (identifier) right: (_)` out here made this
; one pattern cost a fifth of the model's time.
(assignment) @assign
