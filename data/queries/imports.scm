; Import statements at any level: `import triton.language as tl`,
; `from triton import jit`, `from triton.language.extra import libdevice`.
(import_statement) @import
(import_from_statement) @import_from
