# JupyterLab settings for `make lab` and the browser tests, read through JUPYTER_CONFIG_PATH (the Makefile
# and tests/browser/conftest.py put this folder first on it). Nothing is written into the user's home: the
# user's own settings still live where JupyterLab keeps them and win over the defaults set here.
import os

c = get_config()  # noqa: F821 (provided by Jupyter when it reads this file)

here = os.path.dirname(os.path.abspath(__file__))
# Default values for JupyterLab's settings (lab/overrides.json): no "official Jupyter news?" question on the
# first start, and no update check from the page. This folder replaces the environment's own
# share/jupyter/lab/settings (where a pip install puts nothing).
c.LabApp.app_settings_dir = os.path.join(here, "lab")
# The server side of the same: no news feed is fetched and no update check is made, whatever the settings say.
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
