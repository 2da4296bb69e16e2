{{ config(materialized='k_anonymous', k=var('bench_k'), max_suppression=0.04) }}
-- five quasi-identifiers of depth 3 to 4 (a lattice of 2,000 nodes), 4 % budget, gate and audit included
{{ kanon.release_records(ref('bench_records'), columns={
    'person_id': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [
        [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95],
        [0, 10, 20, 30, 40, 50, 60, 70, 80, 90], [0, 20, 40, 60, 80]]},
    'zip': {'role': 'quasi_identifier', 'hierarchy': ref('bench_records_hierarchy_zip')},
    'visit_date': {'role': 'quasi_identifier', 'date': ['month', 'quarter', 'year']},
    'income': {'role': 'quasi_identifier', 'bins': [
        [0, 10000, 20000, 30000, 40000, 50000, 60000, 70000, 80000, 90000, 100000, 120000, 140000, 160000, 180000],
        [0, 20000, 40000, 60000, 80000, 100000, 140000, 180000], [0, 40000, 80000, 140000]]},
    'occupation': {'role': 'quasi_identifier', 'hierarchy': ref('bench_records_hierarchy_occupation')},
    'diagnosis': 'sensitive'}) }}
