; Host-side patterns that are easier to say as trees than as code.

; A ceiling division written by hand: (a + b - 1) // b
(binary_operator
  left: (parenthesized_expression
          (binary_operator
            left: (binary_operator left: (_) @cdiv.num operator: "+" right: (_) @cdiv.den)
            operator: "-"
            right: (integer) @cdiv.one))
  operator: "//"
  right: (_) @cdiv.den2
  (#eq? @cdiv.one "1")
  (#eq? @cdiv.den @cdiv.den2)) @cdiv

; A stride test that makes a copy conditional: x.stride(-1) != 1
(comparison_operator
  (call function: (attribute attribute: (identifier) @stride.method))
  (#eq? @stride.method "stride")) @stride_test

; The same with a literal tile size: (n + 63) // 64. The code checks that
; the added constant is one less than the divisor.
(binary_operator
  left: (parenthesized_expression
          (binary_operator left: (_) operator: "+" right: (integer) @cdiv_lit.add))
  operator: "//"
  right: (integer) @cdiv_lit.den) @cdiv_lit
