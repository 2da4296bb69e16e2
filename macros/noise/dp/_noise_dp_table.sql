{#-
  The noise of a `dp` release as an exact lookup table over whole numbers: no floating-point
  sampling in SQL (Mironov's attack on textbook Laplace samplers), no random(). A cell's draw u,
  a whole number in [0, 2^60) from a keyed hash (_noise_dp_draw), falls in exactly one row
  [lo, hi) of the table, whose z is the noise added to the cell's count.

    mechanism 'laplace'   discrete Laplace: P(z) proportional to exp(-|z| / scale)
              'gaussian'  discrete Gaussian: P(z) proportional to exp(-z^2 / (2 scale^2))

  Each row's width is floor(P(z) 2^60) for z <> 0, z = 0 taking the rest, for |z| <= T, the
  largest z with P(z) >= 2^-40 (so every row is at least 2^20 wide: rounding moves no ratio by
  more than 2^-20). tv is the total variation distance between this table and the exact
  distribution (the tail cut beyond T and the rounding), which the release adds to its delta.
  Computed here, in Jinja, once per release: the same rows on every warehouse.
  tests/oracles/dp.py computes the same in Python; the tests check it against the exact
  distribution (and the release's draws against it by goodness of fit).
  Returns {'rows': [[z, lo, hi], ...] ascending z, 'tv', 'variance', 'bound' (T)}.
-#}
{% macro _noise_dp_table(mechanism, scale) %}
  {%- set e = 2.718281828459045 -%}
  {%- set bits = kanon._noise_dp_bits() -%}
  {%- set space = 2 ** bits -%}
  {#- far enough that the weights beyond are below e^-50 of the centre's (laplace) or e^-72 -#}
  {%- set cap = ((scale * 50) | int) + 50 if mechanism == 'laplace' else ((scale * 12) | int) + 12 -%}
  {%- set weights = [] -%}
  {%- for z in range(cap + 1) -%}
    {%- do weights.append(e ** (-z / scale) if mechanism == 'laplace' else e ** (-(z * z) / (2 * scale * scale))) -%}
  {%- endfor -%}
  {%- set ns = namespace(total=0.0, bound=0, tail=0.0, taken=0, rounding=0.0) -%}
  {%- for w in weights[1:] -%}{%- set ns.total = ns.total + w -%}{%- endfor -%}
  {%- set ns.total = weights[0] + 2 * ns.total -%}
  {%- for w in weights if w / ns.total >= 2 ** -40 -%}{%- set ns.bound = loop.index0 -%}{%- endfor -%}
  {%- set outer = [] -%}
  {%- for z in range(1, ns.bound + 1) -%}
    {%- set p = weights[z] / ns.total -%}
    {%- set width = (p * space) | int -%}
    {%- do outer.append(width) -%}
    {%- set ns.taken = ns.taken + 2 * width -%}
    {%- set ns.rounding = ns.rounding + 2 * (p - width / space) -%}
  {%- endfor -%}
  {%- set widths = [space - ns.taken] + outer -%}
  {%- for w in weights[ns.bound + 1:] -%}{%- set ns.tail = ns.tail + 2 * w / ns.total -%}{%- endfor -%}
  {%- set p0 = weights[0] / ns.total -%}
  {%- set tv = 0.5 * (((widths[0] / space - p0) | abs) + ns.rounding + ns.tail) -%}
  {%- set rows = [] -%}
  {%- set at = namespace(lo=0, variance=0.0) -%}
  {%- for z in range(-ns.bound, ns.bound + 1) -%}
    {%- set width = widths[z | abs] -%}
    {%- do rows.append([z, at.lo, at.lo + width]) -%}
    {%- set at.lo = at.lo + width -%}
    {%- set at.variance = at.variance + z * z * width / space -%}
  {%- endfor -%}
  {{ return({'rows': rows, 'tv': tv, 'variance': at.variance, 'bound': ns.bound}) }}
{% endmacro %}

{#- The bits of a dp draw: u in [0, 2^60), the first 15 hex digits of an HMAC (fits a bigint). -#}
{% macro _noise_dp_bits() %}
  {{ return(60) }}
{% endmacro %}
