"""The deep-learning half of the paper: VDM density ratios for DCGANs (§3.2, §5.2, Appendix E).

Modules
-------
networks     the DCGAN generator and discriminator for 28 x 28 images, an MLP, a label CNN
training     epoch loops with progress, per-epoch checkpoints keyed by configuration, resuming
dcgan        :class:`DCGAN`, the learner (also ``gendel.models.DCGAN``)
vdm          :class:`VDMDRE`, the VDM density ratio estimator (also ``gendel.dre.VDMDRE``)
classifier   :class:`LabelClassifier`, which reads the label distribution of generated images
experiment   the profiles and jobs of §5.2 and a job's stages (train, Q2, Q3, curves)
results      :class:`JobResult`, the result files, the stored results and the rule for "done"
provenance   :func:`code_fingerprint` and the provenance record of a result
report       from results to the chapter's numbers (the claims are in gendel.claims.gan)

``python -m gendel.gan`` runs jobs and grids. Everything here needs torch; the rest of gendel
does not import it.
"""

from .classifier import LabelClassifier
from .dcgan import DCGAN
from .experiment import PROFILES, Job, Profile, find_job, jobs, run_job, run_profile, train, trained_models
from .provenance import code_fingerprint
from .results import JobResult, load_result, load_results, remake_command, stored_results
from .vdm import VDMDRE

__all__ = ["DCGAN", "VDMDRE", "LabelClassifier", "PROFILES", "Profile", "Job", "jobs", "find_job", "run_job",
           "run_profile", "train", "trained_models", "JobResult", "load_result", "load_results", "stored_results",
           "remake_command", "code_fingerprint"]
