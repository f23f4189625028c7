# Écrit sous Windows : fins de ligne CRLF, tabulations, BOM UTF-8.
import triton
import triton.language as tl


@triton.jit
def échelle_kernel(x_ptr, n, facteur, BLOCK: tl.constexpr):
	# décalage → indices
	décalage = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
	for étape in range(0, 4):
		valeur = tl.load(x_ptr + décalage, mask=décalage < n)  # « charge »
		tl.store(x_ptr + décalage, valeur * facteur, mask=décalage < n)


def lance(x, facteur):
	n = x.numel()
	échelle_kernel[(triton.cdiv(n, 256),)](x, n, facteur, BLOCK=256)
