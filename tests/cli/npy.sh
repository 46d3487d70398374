# tests/cli/npy.sh: .npy and .npz, sourced by tests/cli/run.sh (uses its X, T,
# S and helpers). numpy is not needed: tests/cli/npy_tool.py writes the files
# byte by byte from numpy's documented format and reads what onnxop writes
# with numpy's own header checks and zipfile's CRC checks.
N="$T/npy"
NT="python3 tests/cli/npy_tool.py"
mkdir -p "$N"
if $NT gen "$N" 2>"$T/npy_gen.err"; then ok; else bad "npy_tool.py gen: $(head -c 400 "$T/npy_gen.err")"; fi
# py NAME CMD...: a python check passes
py() {
  name=$1
  shift
  if "$@" >"$T/$name.out" 2>"$T/$name.err"; then ok; else bad "$name: $(head -c 400 "$T/$name.err")"; fi
}

# ---- reading: every dtype, both byte orders, C and Fortran order, versions 1-3 ----
for f in f4 f8_be i8_fortran u2_be_fortran_v2 b1 c8 c16_be f2 i1 u1 i2 i4 u4 u8 empty U U_be_fortran_v3 S; do
  expect 0 "npy_read_$f" "$X" compare "$N/$f.npy" "$N/$f.json"
  # writing: numpy's reader accepts the file and finds the same value
  expect 0 "npy_write_$f" "$X" convert "$N/$f.json" "$N/w_$f.npy"
  py "npy_check_$f" $NT check "$N/w_$f.npy" "$N/$f.json"
done
# C-order little-endian files come out byte for byte as numpy writes them
for f in f4 b1 c8 f2 i1 u1 i2 i4 u8 empty U; do
  if cmp -s "$N/w_$f.npy" "$N/$f.npy"; then ok; else bad "npy_bytes_$f: $N/w_$f.npy differs from numpy's bytes"; fi
done
expect 0 npy_show "$X" show "$N/i8_fortran.npy"
out_has npy_show "i8_fortran.npy: shape=(2, 3), dtype=int64"
out_has npy_show "[[1, 2, 3],"
expect 0 npy_show_u "$X" show "$N/U_be_fortran_v3.npy"
out_has npy_show_u "['déf', '😀']]"

# ---- .npz: members by name, stored and deflate ----
expect 0 npz_show "$X" show "$N/bundle_deflate.npz"
out_has npz_show "  x: shape=(2, 3), dtype=float32"
out_has npz_show "  pos: shape=(), dtype=int64"
expect 0 npz_member "$X" compare "$N/bundle.npz:pos" "$N/bundle.pos.json"
expect 0 npz_member_npy "$X" compare "$N/bundle_deflate.npz:x.npy" "$N/bundle.x.json"
expect 0 npz_copy "$X" convert "$N/bundle_deflate.npz" "$N/copy.npz"
py npz_copy_check $NT check "$N/copy.npz"
out_has npz_copy_check 'pos {"descr": "<i8", "dtype": "int64", "shape": [], "data": [-2]}'
if cmp -s "$N/copy.npz" "$N/bundle_expected_bytes.npz"; then ok; else bad "npz_bytes: $N/copy.npz differs from the expected stored zip"; fi
expect 0 npz_compare "$X" compare "$N/copy.npz" "$N/bundle.npz"
out_has npz_compare "x: match (6 elements"
out_has npz_compare "pos: match (1 element)"
expect 0 npz_zip64 "$X" compare "$N/zip64.npz" "$N/bundle.npz"
out_has npz_zip64 "pos: match (1 element)"
expect 2 npz_ambiguous "$X" convert "$N/bundle.npz" "$N/never.json"
err_has npz_ambiguous "the .npz archive holds 2 arrays (x, pos); name one as FILE.npz:NAME"
no_file "$N/never.json"
expect 1 npz_no_member "$X" show "$N/bundle.npz:z"
err_has npz_no_member "the .npz archive has no member 'z' (it holds x, pos)"

# ---- run: --in FILE.npy / FILE.npz, --out FILE.npz, --out-dir --format npy|npz ----
expect 0 npy_make_add "$X" make Add --input x:float32[2,3] --input y:float32[2,3] --output z -o "$T/add.onnx"
expect 0 npz_run_named "$X" run "$T/add.onnx" --in "$N/yx.npz"
out_has npz_run_named "[37.75, 53.5 , 55.25]]"
expect 0 npz_run_positional "$X" run "$T/add.onnx" --in "$N/arr.npz"
out_has npz_run_positional "[37.75, 53.5 , 55.25]]"
expect 0 npz_run_member "$X" run "$T/add.onnx" --in "y=$N/yx.npz" --in "$N/f4.npy"
out_has npz_run_member "[37.75, 53.5 , 55.25]]"
expect 0 npz_run_out "$X" run "$T/add.onnx" --in "$N/f4.npy" --in "$N/f4.json" --out "$N/out.npz"
py npz_run_out_check $NT check "$N/out.npz"
out_has npz_run_out_check 'z {"descr": "<f4", "dtype": "float32", "shape": [2, 3], "data": [-2.0, 0.0, 3.0, -4.5, 7.0, -9.5]}'
expect 0 npy_outdir "$X" run "$T/add.onnx" --in "$N/yx.npz" --out-dir "$N/od" --format npy
py npy_outdir_check $NT check "$N/od/output_0.npy"
expect 0 npz_outdir "$X" run "$T/add.onnx" --in "$N/yx.npz" --out-dir "$N/od" --format npz
py npz_outdir_check $NT check "$N/od/outputs.npz"
out_has npz_outdir_check 'z {"descr": "<f4"'
expect 0 npy_cmp_dir "$X" compare "$N/od" "$N/od"
out_has npy_cmp_dir "output_0: match"
mkdir -p "$N/odz" && cp "$N/od/output_0.npy" "$N/odz/output_0.npy"
expect 0 npy_cmp_dir_pb "$X" run "$T/add.onnx" --in "$N/yx.npz" --out-dir "$N/odp"
expect 0 npy_cmp_dir_mixed "$X" compare "$N/odz" "$N/odp"
out_has npy_cmp_dir_mixed "output_0: match (6 elements"
expect 2 npz_run_extra "$X" run "$T/add.onnx" --in "$N/bundle.npz" --in "$N/f4.npy"
err_has npz_run_extra "too many inputs: the model takes 2"
expect 1 npz_run_wrong_type "$X" run "$T/add.onnx" --in "$N/bundle.npz"
err_has npz_run_wrong_type "bundle.npz:pos (input 'y'): member 'pos.npy': the file holds tensor(int64) but the model declares tensor(float)"
expect 2 npy_bad_format "$X" run "$T/add.onnx" --in "$N/yx.npz" --out-dir "$N/never" --format npq
err_has npy_bad_format "unknown format 'npq' (pb, json, npy or npz)"

# ---- values .npy cannot hold: refused, naming the formats that can; no file left ----
echo '{"dtype": "bfloat16", "shape": [1], "data": [1]}' >"$N/bf16.json"
expect 1 npy_bf16 "$X" convert "$N/bf16.json" "$N/never.npy"
err_has npy_bf16 "numpy's .npy format has no bfloat16 dtype: use .pb or .json"
no_file "$N/never.npy"
echo '{"dtype": "int4", "shape": [2], "data": [1, -2]}' >"$N/i4b.json"
expect 1 npy_int4 "$X" convert "$N/i4b.json" "$N/never.npz"
err_has npy_int4 "numpy's .npy format has no int4 dtype: use .pb or .json"
no_file "$N/never.npz"
expect 1 npy_seq "$X" run "$T/oge_seq.onnx" --in "$S/opt_seq.json" --out-dir "$N/never_dir" --format npy
err_has npy_seq "a .npy file holds one tensor, and this is a seq(tensor(int32)): use .pb or .json"
no_file "$N/never_dir/output_0.npy"

# ---- hostile files: refused with the reason, exit status 1 (also a dtype onnxop does not read) ----
bad_npy() { # CODE FILE MESSAGE
  expect "$1" "npy_$2" "$X" --max-memory 32M convert "$N/$2" "$N/never_$2.json"
  err_has "npy_$2" "$3"
  no_file "$N/never_$2.json"
}
bad_npy 1 bad_header_len.npy "the .npy header length 60000 runs past the end of the file (152 bytes)"
bad_npy 1 bad_header_len_v2.npy "the .npy header length 4294967280 runs past the end of the file"
bad_npy 1 bad_overflow.npy "shape (1099511627776, 1099511627776) of '<f4' is too large"
bad_npy 1 bad_short.npy "the data is short: shape (2, 3) of '<f4' needs 24 bytes, the file has 20"
bad_npy 1 bad_trailing.npy "4 bytes follow the data of shape (2, 3) of '<f4'"
bad_npy 1 bad_object.npy "object arrays (dtype '|O') hold pickled Python objects; onnxop does not read them"
bad_npy 1 bad_structured.npy "structured dtypes (a list of fields in 'descr') are not supported"
bad_npy 1 bad_version.npy ".npy version 4.0 is not one onnxop reads (1.0, 2.0, 3.0)"
bad_npy 1 bad_magic.npy "not a .npy file"
bad_npy 1 bad_key.npy "bad .npy header: unknown key 'shapf'"
bad_npy 1 bad_datetime.npy "dtype '<M8[ns]' is not supported"
bad_npy 1 bad_surrogate.npy "string element 0 holds U+D800, which is not a Unicode character"
bad_npy 1 bad_zip_offset.npz "bad zip archive: member 'x.npy' has no local header at offset 100000"
bad_npy 1 bad_zip_size.npz "bad zip archive: member 'x.npy' (1000000 bytes at offset 35) runs past its end"
bad_npy 1 bad_zip_crc.npz "member 'x.npy': corrupt (CRC32"
bad_npy 1 bad_zip_path.npz "zip member '../x.npy' has a path or an empty name"
bad_npy 1 bad_zip_abs.npz "zip member '/tmp/x.npy' has a path or an empty name"
bad_npy 1 bad_zip_dup.npz "the archive holds 'x' twice"
bad_npy 1 bad_zip64_locator.npz "bad zip archive: the zip64 end record is not where the locator says"
bad_npy 1 bad_zip_truncated.npz "not a zip archive (no end of central directory record)"
bad_npy 1 bad_zip_bomb.npz "member 'x.npy': it declares 67108992 bytes uncompressed, more than the memory limit allows (33554432 bytes; see --max-memory)"
bad_npy 1 bad_zip_liar.npz "member 'x.npy': it inflates to more than its declared 100 bytes"

# ---- standard input: .npy and .npz are told apart by their first bytes ----
"$X" run "$T/add.onnx" --in x=- --in "$N/f4.json" <"$N/f4.npy" >"$T/npy_stdin.out" 2>"$T/npy_stdin.err"
out_has npy_stdin "[-4.5,  7. , -9.5]]"
"$X" show - <"$N/bundle_deflate.npz" >"$T/npz_stdin.out" 2>"$T/npz_stdin.err"
err_has npz_stdin "the .npz archive holds 2 arrays (x, pos)"
