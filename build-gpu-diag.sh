so=$(python3 -c 'import cupy_backends.cuda.api.runtime as m; print(m.__file__)' 2>/dev/null)
echo "== $so"; readelf --dyn-syms -W "$so" | grep -E "cuMemcpy|cuGetProcAddress" | head
d=$(dirname "$so"); for f in "$d"/*.so; do readelf --dyn-syms -W "$f" 2>/dev/null | grep -q "UND cuMemcpyDtoHAsync" && echo "imports cuMemcpyDtoHAsync: $f"; done
LD_DEBUG=bindings python3 bench/frameworks/cupy_loop.py 2 8 2>&1 | grep -E "cuMemcpyDtoHAsync|cuGetProcAddress" | head -5
