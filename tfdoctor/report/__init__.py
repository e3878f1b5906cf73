"""Stage: findings -> diagnosis. diagnosis.py combines findings into a Report: root causes first,
ranked by severity, basis and the error the user brought, with the symptoms they explain under
them; areas.py names the report's areas (one per code prefix, in the order facts flow).
"""
