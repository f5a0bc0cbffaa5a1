"""The deep-learning half of the paper: VDM density ratios for DCGANs (§3.2, §5.2, Appendix E).

Modules
-------
networks     the DCGAN generator and discriminator for 28 x 28 images, an MLP, a label CNN
training     epoch loops with progress, per-epoch checkpoints keyed by configuration, resuming
dcgan        :class:`DCGAN`, the learner (also ``gendel.models.DCGAN``)
vdm          :class:`VDMDRE`, the VDM density ratio estimator (also ``gendel.dre.VDMDRE``)
classifier   :class:`LabelClassifier`, which reads the label distribution of generated images
protocol     the jobs and profiles of §5.2; ``python -m gendel.gan``
result_files where the jobs' result files live and how they are read (re-exported by protocol)
report       from result files to the chapter's numbers (the claims are in gendel.claims.gan)

Everything here needs torch; the rest of gendel does not import it.
"""

from .classifier import LabelClassifier
from .dcgan import DCGAN
from .protocol import PROFILES, Job, Profile, jobs, load_results, run_job, run_profile, trained_models
from .vdm import VDMDRE

__all__ = ["DCGAN", "VDMDRE", "LabelClassifier", "PROFILES", "Profile", "Job", "jobs", "run_job", "run_profile",
           "trained_models", "load_results"]
