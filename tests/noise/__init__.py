"""Noise after k (macros/noise): the Cell Key Method, mode 'dp', tables with totals, the
perturbation-table generator."""
