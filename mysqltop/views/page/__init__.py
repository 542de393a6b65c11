"""`report --format html`: the incident as one self-contained page (no script, no remote load).

page_model.py turns a Report into the page's sections, page_charts.py and svg_plot.py its
charts (numbers only), top_load.py the top-load tables, page_templates.py writes the page
through autoescaped Jinja2 templates (templates/).
"""
