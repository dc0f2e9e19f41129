// Malformed graph files, one per validation rule of SPEC 1 and issue 2, each with the
// line (and column, 0 when not checked) the diagnostic must point at and words its
// message must contain. Used twice: against the library (loadGraphFile) and against
// the built `einplan check`, which must also exit 2 and write nothing to stdout.
#pragma once

#include <string>
#include <vector>

struct BadGraphCase {
  const char* name;  // also the file name, with the extension
  const char* text;
  int line;
  int col;
  std::vector<std::string> words;
};

inline const std::vector<BadGraphCase>& badGraphCases() {
  static const std::vector<BadGraphCase> cases = {
      {"file_shape_count.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 6], file_shape: [5, 5]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 0, {"file_shape of 'A'", "25 elements", "tensor 24"}},
      {"file_shape_not_output.yaml",
       "inputs: {A: [4, 6]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ij\", inputs: [A], file_shape: [24]}\n"
       "  - {name: C, einsum: \"ij->i\", inputs: [B]}\n",
       3, 0, {"node 'B' has a file_shape", "not a graph output"}},
      {"file_shape_extent.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4], file_shape: [0, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"i->i\", inputs: [A]}\n",
       2, 0, {"file_shape of 'A'", "extents must be positive"}},
      {"unknown_tensor.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsum: \"ij,jk->ik\"\n"
       "    inputs: [A, Q]\n",
       5, 17, {"node 'B'", "unknown tensor 'Q'"}},
      {"unknown_tensor_suggestion.yaml",
       "inputs: {Alpha: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [Alpah]}\n",
       3, 41, {"unknown tensor 'Alpah'", "did you mean 'Alpha'"}},
      {"duplicate_name_input_node.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n"
       "  - {name: A, einsum: \"ij->j\", inputs: [A]}\n",
       5, 12, {"duplicate name 'A'", "an input at line 2"}},
      {"duplicate_name_inputs.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       3, 12, {"duplicate name 'A'"}},
      {"bad_identifier_quote.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: \"B'x\", einsum: \"ij->i\", inputs: [A]}\n",
       3, 13, {"bad node name", "character '\\''"}},
      {"bad_identifier_semicolon.yaml",
       "inputs: {\"A;rm\": [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 11, {"bad input name 'A;rm'", "character ';'"}},
      {"bad_identifier_newline.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: \"B\\nC\"\n"
       "    einsum: \"ij->i\"\n"
       "    inputs: [A]\n",
       3, 11, {"bad node name 'B\\nC'", "character '\\n'"}},
      {"bad_identifier_too_long.yaml",
       "name: g\n"
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: N23456789012345678901234567890123456789012345678901234567890123456789\n"
       "    einsum: \"ij->i\"\n"
       "    inputs: [A]\n",
       4, 11, {"bad node name", "69 characters long", "at most 64"}},
      {"bad_graph_name.yaml",
       "name: \"my graph\"\n"
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 8, {"bad graph name 'my graph'"}},
      {"bad_label.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"i.->i\", inputs: [A]}\n",
       3, 25, {"a lone '.'", "NumPy's ellipsis is three dots"}},
      {"bad_label_multichar.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsum: \"row c\\\"ol -> row\"\n"
       "    inputs: [A]\n",
       4, 13, {"bad label", "'c\"ol'"}},
      {"label_size_mismatch.yaml",
       "inputs:\n"
       "  A: [4, 6]\n"
       "  C: [5, 3]\n"
       "nodes:\n"
       "  - name: AB\n"
       "    einsum: \"ij->ij\"\n"
       "    inputs: [A]\n"
       "  - name: Z\n"
       "    einsum: \"ij,jk->ik\"\n"
       "    inputs: [AB, C]\n",
       9, 17, {"node 'Z'", "label 'j' has size 5", "dimension 1 of 'C' (operand 2)", "size 6",
               "dimension 2 of 'AB' (operand 1)", "within one node a label has one size"}},
      {"label_size_mismatch_sizes.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ik->i\", inputs: [A], sizes: {k: 8}}\n",
       3, 56, {"node 'B'", "'sizes' gives label 'k' size 8", "size 4 in dimension 2 of 'A'"}},
      {"node_sizes_unknown_label.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ik->i\", inputs: [A], sizes: {q: 8}}\n",
       3, 53, {"node 'B'", "'sizes' gives label 'q'", "does not use"}},
      {"one_space_makes_words.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ij k\", inputs: [A], sizes: {k: 2}}\n",
       3, 44, {"operand 1 has 1 label", "rank 2", "a space anywhere in an einsum", "'ij' is one label",
               "'i j -> i j k'"}},
      {"rank_mismatch.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ijk->i\", inputs: [A]}\n",
       3, 42, {"operand 1 has 3 labels", "'A' has rank 2"}},
      {"operand_count_mismatch.yaml",
       "inputs: {A: [4, 4], B: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij,jk->ik\"\n"
       "    inputs: [A]\n",
       5, 13, {"node 'C'", "2 operands", "lists 1 tensor"}},
      {"diagonal_of_a_non_square.yaml",
       "inputs: {A: [4, 3]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ii->i\", inputs: [A]}\n",
       3, 25, {"label 'i' has size 3", "size 4"}},
      {"repeated_label_output.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->jj\", inputs: [A]}\n",
       3, 29, {"label 'j' appears twice in the output"}},
      {"unknown_join.yaml",
       "inputs: {A: [4, 4], B: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij,ij->ij\"\n"
       "    join: mull\n"
       "    inputs: [A, B]\n",
       5, 11, {"unknown join 'mull'", "did you mean 'mul'"}},
      {"unknown_agg.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij->i\"\n"
       "    agg: mean\n"
       "    inputs: [A]\n",
       5, 10, {"unknown agg 'mean'", "sum, max, min or prod"}},
      {"bad_expression.yaml",
       "inputs: {A: [4, 4], B: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij,ij->ij\"\n"
       "    join: \"exp(x - )\"\n"
       "    inputs: [A, B]\n",
       5, 20, {"bad expression 'exp(x - )'", "column 9 of the expression"}},
      {"bad_expression_function.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij->ij\"\n"
       "    join: 2 * gelu(x)\n"
       "    inputs: [A]\n",
       5, 15, {"unknown function 'gelu'"}},
      {"expression_uses_y_in_unary.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij->ij\"\n"
       "    join: \"x * y\"\n"
       "    inputs: [A]\n",
       5, 16, {"node 'C' has one input", "uses y"}},
      {"named_join_in_unary.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: C, einsum: \"ij->ij\", join: add, inputs: [A]}\n",
       3, 39, {"one input", "join 'add' combines two operands"}},
      {"cycle.yaml",
       "inputs: {X: [4, 4]}\n"
       "nodes:\n"
       "  - {name: P, einsum: \"ij,jk->ik\", inputs: [X, R]}\n"
       "  - {name: Q, einsum: \"ij->ij\", inputs: [P]}\n"
       "  - {name: R, einsum: \"ij->ij\", inputs: [Q]}\n",
       3, 5, {"cycle", "P -> Q -> R -> P"}},
      {"self_use.yaml",
       "inputs: {X: [4, 4]}\n"
       "nodes:\n"
       "  - {name: P, einsum: \"ij,jk->ik\", inputs: [X, P]}\n",
       3, 48, {"node 'P' uses its own output"}},
      {"nary_not_contraction.yaml",
       "inputs: {A: [4, 4], B: [4, 4], C: [4, 4]}\n"
       "nodes:\n"
       "  - name: D\n"
       "    einsum: \"ij,ij,ij->ij\"\n"
       "    join: add\n"
       "    inputs: [A, B, C]\n",
       5, 11, {"node 'D' has 3 inputs", "pure contraction", "join 'add'"}},
      {"nary_not_sum.yaml",
       "inputs: {A: [4, 4], B: [4, 4], C: [4, 4]}\n"
       "nodes:\n"
       "  - name: D\n"
       "    einsum: \"ij,jk,kl->il\"\n"
       "    agg: max\n"
       "    inputs: [A, B, C]\n",
       5, 10, {"pure contraction", "agg 'max'"}},
      {"empty_graph.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes: []\n",
       2, 8, {"empty graph"}},
      {"empty_file.yaml", "# nothing here\n", 1, 1, {"empty graph"}},
      {"zero_extent.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 0]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 26, {"tensor 'A' has extent 0 in dimension 2", "positive"}},
      {"negative_extent.yaml",
       "inputs: {A: [-4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 14, {"extent -4", "positive"}},
      {"negative_size.yaml",
       "sizes: {k: -2}\n"
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ik\", inputs: [A]}\n",
       1, 12, {"label 'k'", "size -2", "positive"}},
      {"overflow_elements.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4000000000, 4000000000, 4000000]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ijk->i\", inputs: [A]}\n",
       2, 5, {"tensor 'A'", "element count overflows 64 bits"}},
      {"overflow_bytes.yaml",
       "dtype: f64\n"
       "inputs:\n"
       "  - {name: A, shape: [2147483648, 1073741824]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       3, 5, {"tensor 'A'", "bytes overflows 64 bits"}},
      {"overflow_flops.yaml",
       "inputs: {A: [2097152, 2097152], B: [2097152, 2097152]}\n"
       "nodes:\n"
       "  - {name: AB, einsum: \"ij,jk->ik\", inputs: [A, B]}\n",
       3, 5, {"node 'AB'", "overflows 64 bits"}},
      {"extent_too_large.yaml",
       "inputs: {A: [99999999999999999999, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 14, {"does not fit in a signed 64-bit integer"}},
      {"broadcast_without_size.yaml",
       "inputs: {A: [4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsum: \"i -> i rep\"\n"
       "    inputs: [A]\n",
       4, 21, {"output label 'rep'", "broadcast", "'sizes'"}},
      {"json_syntax_trailing_comma.json",
       "{\"inputs\": {\"A\": [4, 4]},\n"
       " \"nodes\": [{\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": [\"A\"],}]}\n",
       2, 61, {"JSON syntax error", "expected string literal"}},
      {"json_syntax_unclosed.json",
       "{\"inputs\": {\"A\": [4, 4]},\n"
       " \"nodes\": [{\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": [\"A\"]}\n",
       3, 1, {"JSON syntax error"}},
      {"json_comment.json",
       "{\"inputs\": {\"A\": [4, 4]},\n"
       "  # a comment\n"
       " \"nodes\": [{\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": [\"A\"]}]}\n",
       2, 3, {"JSON syntax error", "invalid literal"}},
      {"json_unknown_tensor.json",
       "{\n"
       "  \"inputs\": {\"A\": [4, 4]},\n"
       "  \"nodes\": [\n"
       "    {\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": [\"Z\"]}\n"
       "  ]\n"
       "}\n",
       4, 50, {"unknown tensor 'Z'"}},
      {"json_wrong_type.json",
       "{\"inputs\": {\"A\": [4, 4]},\n"
       " \"nodes\": [{\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": \"A\"}]}\n",
       2, 55, {"'inputs' of node 'B' must be a list", "a string ('A')"}},
      {"json_string_extent.json",
       "{\"inputs\": {\"A\": [4, \"4\"]},\n"
       " \"nodes\": [{\"name\": \"B\", \"einsum\": \"ij->i\", \"inputs\": [\"A\"]}]}\n",
       1, 22, {"extent 2 of tensor 'A' must be an integer", "a string ('4')"}},
      {"yaml_syntax.yaml",
       "inputs: {A: [4, 4]\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       0, 0, {"YAML syntax error"}},
      {"yaml_stray_comma.yaml",  // hangs yaml-cpp 0.7's LoadAll unless guarded
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n"
       "---\n"
       ",\n",
       5, 1, {"YAML syntax error"}},
      {"unknown_top_field.yaml",
       "inputs: {A: [4, 4]}\n"
       "node:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 1, {"unknown field 'node'", "did you mean 'nodes'"}},
      {"unknown_node_field.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsums: \"ij->i\"\n"
       "    inputs: [A]\n",
       4, 5, {"unknown field 'einsums' in the node", "did you mean 'einsum'"}},
      {"unknown_tensor_field.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4], dtyp: f64}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 30, {"unknown field 'dtyp' in the tensor", "did you mean 'dtype'"}},
      // Index tensors and index nodes (SPEC 8, 8.1).
      // Per-tensor float types and casts (SPEC 8, tensor_types.h).
      {"mixed_float_operands.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4], dtype: f64}\n"
       "  - {name: C, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij,ij->ij\", inputs: [A, C]}\n",
       5, 48, {"operand 2 ('C') is f32 and operand 1 ('A') is f64", "cast one of them first"}},
      {"cast_permutes.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ji\", inputs: [A], cast: bf16}\n",
       4, 52, {"a cast (`cast: bf16`) converts one operand element by element", "\"ij->ij\""}},
      // A widening contraction (`cast: f32` on a contraction) reads two 2-byte operands ...
      {"widening_of_f32.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij,jk->ik\", inputs: [A, A], cast: f32}\n",
       4, 45, {"a contraction with `cast: f32` (a widening contraction, SPEC 8) reads two operands of one 2-byte float type",
               "operand 1 ('A') is f32"}},
      // ... and is a contraction: x * y summed.
      {"widening_join.yaml",
       "dtype: bf16\n"
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij,jk->ik\", inputs: [A, A], join: \"x + y\", cast: f32}\n",
       5, 73, {"widens a contraction of two bf16 or f16 operands (join x * y, aggregation sum) into f32"}},
      {"cast_unknown_type.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ij\", inputs: [A], cast: bf61}\n",
       4, 52, {"cast to unknown type 'bf61'", "did you mean 'bf16'"}},
      {"cast_of_ids.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4], dtype: i32}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->ij\", inputs: [A], cast: f32}\n",
       4, 42, {"reads 'A', which holds ids (dtype i32)", "first operand of a gather or scatter"}},
      {"input_unknown_dtype.yaml",
       "inputs:\n"
       "  - {name: A, shape: [4, 4], dtype: i16}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 37, {"unknown dtype 'i16'", "use i32 or i64 for ids"}},
      {"gather_float_ids.yaml",
       "inputs: {ids: [2, 3], E: [10, 4]}\n"
       "nodes:\n"
       "  - {name: Z, einsum: \"bs,vd->bsd\", join: gather, inputs: [ids, E]}\n",
       3, 60, {"the first operand of a gather holds the ids", "'ids' is a float input"}},
      {"ids_in_a_join.yaml",
       "inputs:\n"
       "  - {name: ids, shape: [2, 3], dtype: i64}\n"
       "nodes:\n"
       "  - {name: Z, einsum: \"bs->b\", inputs: [ids]}\n",
       4, 41, {"reads 'ids', which holds ids (dtype i64)", "first operand of a gather or scatter"}},
      {"gather_two_selected_labels.yaml",
       "inputs:\n"
       "  - {name: ids, shape: [2, 3], dtype: i32}\n"
       "  - {name: E, shape: [10, 4]}\n"
       "nodes:\n"
       "  - {name: Z, einsum: \"bs,vd->bs\", join: gather, inputs: [ids, E]}\n",
       5, 42, {"a gather needs exactly one label", "has 'v', 'd'"}},
      {"gather_ids_label_dropped.yaml",
       "inputs:\n"
       "  - {name: ids, shape: [2, 3], dtype: i32}\n"
       "  - {name: E, shape: [10, 4]}\n"
       "nodes:\n"
       "  - {name: Z, einsum: \"bs,vd->bd\", join: gather, inputs: [ids, E]}\n",
       5, 42, {"label 's' of the ids must also be in the output"}},
      {"gather_agg_max.yaml",
       "inputs:\n"
       "  - {name: ids, shape: [2, 3], dtype: i32}\n"
       "  - {name: E, shape: [10, 4]}\n"
       "nodes:\n"
       "  - {name: Z, einsum: \"bs,vd->bsd\", join: gather, agg: max, inputs: [ids, E]}\n",
       5, 43, {"a gather sums (agg sum)"}},
      {"scatter_without_size.yaml",
       "inputs:\n"
       "  - {name: ids, shape: [2, 3], dtype: i32}\n"
       "  - {name: G, shape: [2, 3, 4]}\n"
       "nodes:\n"
       "  - {name: dE, einsum: \"bs,bsd->vd\", join: scatter, inputs: [ids, G]}\n",
       5, 33, {"output label 'v' is in no operand", "sizes"}},
      // Windows (SPEC 8.1): one mapping per input, labels of that input, sizes of labels
      // read only through windows, a numeric fill only with windows, no gather windows.
      {"window_count.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{j: 1}, {}], sizes: {j: 4}}\n",
       3, 55, {"'windows' has 2 entries but the node has 1 input"}},
      {"window_label.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{k: 1}]}\n",
       3, 57, {"names label 'k', which operand 1 ('A') does not have"}},
      {"window_size.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{j: 1}]}\n",
       3, 55, {"label 'j' is read only through windows", "sizes: {j: 16}"}},
      {"window_fill_alone.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], fill: 1}\n",
       3, 52, {"gives a 'fill' but no 'windows'"}},
      {"window_fill_text.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{j: 1}], sizes: {j: 2}, fill: minus}\n",
       3, 86, {"must be a number, -inf or inf"}},
      {"window_offset.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{j: 2000000000000}], sizes: {j: 2}}\n",
       3, 60, {"beyond +-2^40"}},
      {"window_gather.yaml",
       "inputs:\n  - {name: ids, shape: [2, 3], dtype: i32}\n  - {name: E, shape: [10, 4]}\nnodes:\n"
       "  - {name: Z, einsum: \"bs,vd->bsd\", join: gather, inputs: [ids, E], windows: [{}, {d: 1}], sizes: {d: 2}}\n",
       5, 78, {"a gather node reads no operand through a window"}},
      // Windows over tap labels (a convolution's): the tap one of the node's labels and not
      // its own operand's, a nonzero dilation, no other field.
      {"tap_unknown.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: k}}, {}], sizes: {y: 6}}\n",
       3, 72, {"names tap label 'k', which the node's einsum does not use"}},
      {"tap_own.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: c}}, {}], sizes: {y: 6}}\n",
       3, 72, {"tap label 'c' is a label of operand 1 itself"}},
      {"tap_dilation.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: i, dilation: 0}}, {}], sizes: {y: 6}}\n",
       3, 85, {"the dilation of tap label 'i' is 0"}},
      {"tap_field.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: i, stride: 2}}, {}], sizes: {y: 6}}\n",
       3, 75, {"unknown field 'stride' in the window of label 'y'", "{tap: LABEL, dilation: INTEGER, offset: INTEGER, step: INTEGER}"}},
      // Steps and spreads: each within 1 .. 2^20, a dilation only with a tap, a spread alone
      // and only in a copy.
      {"window_step_zero.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: i, step: 0}}, {}], sizes: {y: 3}}\n",
       3, 81, {"the step of the window of label 'y' is 0; it must be within 1 .. 2^20"}},
      {"window_dilation_no_tap.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: [{j: {dilation: 2}}], sizes: {j: 4}}\n",
       3, 71, {"the window of label 'j' has a dilation but no tap label"}},
      {"window_spread_tap.yaml",
       "inputs: {X: [2, 8], W: [4, 3]}\nnodes:\n  - {name: Z, einsum: \"cy,oi->oy\", inputs: [X, W], windows: [{y: {tap: i, spread: 2}}, {}], sizes: {y: 6}}\n",
       3, 83, {"the window of label 'y' has a spread and a tap label"}},
      {"window_spread_not_copy.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->i\", inputs: [A], windows: [{j: {spread: 2}}], sizes: {j: 16}}\n",
       3, 68, {"a window with a spread is read only by a copy"}},
      {"window_not_list.yaml",
       "inputs: {A: [4, 8]}\nnodes:\n  - {name: Z, einsum: \"ij->ij\", inputs: [A], windows: {j: 1}}\n",
       3, 55, {"must be a list with one mapping from label to offset per input"}},
      {"duplicate_field.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsum: \"ij->i\"\n"
       "    einsum: \"ij->j\"\n"
       "    inputs: [A]\n",
       5, 5, {"field 'einsum' appears twice", "line 4"}},
      {"unknown_output.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: Bee, einsum: \"ij->i\", inputs: [A]}\n"
       "outputs: [Bea]\n",
       4, 11, {"output 'Bea' is not a node", "did you mean 'Bee'"}},
      {"output_is_input.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n"
       "outputs: [B, A]\n",
       4, 14, {"output 'A' is a graph input"}},
      {"empty_outputs.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n"
       "outputs: []\n",
       4, 10, {"'outputs' is empty"}},
      {"missing_einsum.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    inputs: [A]\n",
       3, 5, {"node 'B' is missing the required field 'einsum'"}},
      {"missing_inputs.yaml",
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 1, {"missing the required field 'inputs'"}},
      {"missing_shape.yaml",
       "inputs:\n"
       "  - {name: A}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 5, {"input 'A' is missing the required field 'shape'"}},
      {"shape_not_list.yaml",
       "inputs:\n"
       "  - {name: A, shape: \"4, 4\"}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 22, {"shape of tensor 'A' must be a list of integers"}},
      {"extent_not_integer.yaml",
       "inputs: {A: [4, 4.5]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 17, {"extent 2 of tensor 'A' must be an integer", "4.5"}},
      {"unknown_dtype.yaml",
       "dtype: fp16\n"
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       1, 8, {"unknown dtype 'fp16'", "did you mean 'f16'", "f32, f64, bf16 or f16"}},
      {"nodes_not_list.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes: {name: B, einsum: \"ij->i\", inputs: [A]}\n",
       2, 8, {"'nodes' must be a list"}},
      {"two_documents.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - {name: B, einsum: \"ij->i\", inputs: [A]}\n"
       "---\n"
       "inputs: {A: [4, 4]}\n",
       1, 1, {"2 YAML documents"}},
      {"top_level_list.yaml", "- 1\n- 2\n", 1, 1, {"must be a mapping"}},
      {"bad_identifier_unicode.json",
       "{\"inputs\": {\"A\": [4, 4]}, \"nodes\": [{\"name\": \"B\\u00e9\", \"einsum\": \"ij->i\", \"inputs\": [\"A\"]}]}",
       1, 46, {"bad node name", "character '\xc3\xa9' at position 2"}},
      {"bad_expression_folded.yaml",
       "inputs: {A: [4, 4], B: [4, 4]}\n"
       "nodes:\n"
       "  - name: C\n"
       "    einsum: \"ij,ij->ij\"\n"
       "    join: >\n"
       "      exp(x -\n"
       "      )\n"
       "    inputs: [A, B]\n",
       5, 11, {"bad expression", "column 9 of the expression"}},
      {"empty_value.yaml",
       "inputs: {A: [4, 4]}\n"
       "nodes:\n"
       "  - name: B\n"
       "    einsum:\n"
       "    inputs: [A]\n",
       4, 5, {"'einsum' of node 'B' must be a string, not empty"}},
  };
  return cases;
}
