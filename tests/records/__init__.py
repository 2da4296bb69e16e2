"""Record releases, kanon.release_records (macros/records), and the kanon-records command over files."""
