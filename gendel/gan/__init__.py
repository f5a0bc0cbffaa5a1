"""The deep-learning half of the paper: VDM density ratios for DCGANs (§3.2, §5.2, Appendix E).

Modules
-------
images       MNIST and Fashion-MNIST, readable offline; the deletion sets of Appendix E.1
networks     the DCGAN generator and discriminator for 28 x 28 images, an MLP, a label CNN
devices      where a network trains (CPU or CUDA), the hardware record
checkpoints  per-epoch checkpoints keyed by configuration: keys, files, checks
training     epoch loops with progress that checkpoint every epoch and resume
dcgan        :class:`DCGAN`, the learner
vdm          :class:`VDMDRE`, the VDM density ratio estimator
classifier   :class:`LabelClassifier`, which reads the label distribution of generated images
profiles     the sizes (:data:`PROFILES`) and the jobs of §5.2
experiment   a job's stages: train, Q2 (fast deletion), Q3 (the deletion test), per-epoch curves
results      :class:`JobResult`, the result files, the results stored with gendel, their provenance
schema       the declared schema of a result file and the checksum of its content
seal         sealing results made before result files carried checksums
run          :func:`run_job`, the rule for "done", :func:`code_fingerprint` and the provenance record
grid         the jobs of a profile as N processes here or on SLURM
labels       label arithmetic: deleted labels, distributions, TV, Alg. 1's re-weighting min(ρ̂_ℰ, B)
summaries    from results to the chapter's numbers per question (the claims are in :mod:`gendel.claims.gan`)

``python -m gendel.gan`` runs jobs and grids. Everything here needs torch; the rest of gendel
does not import it.
"""

from gendel.gan.classifier import LabelClassifier
from gendel.gan.dcgan import DCGAN
from gendel.gan.experiment import train
from gendel.gan.profiles import PROFILES, Job, Profile, find_job, jobs
from gendel.gan.results import JobResult, load_result, load_results, remake_command, stored_results
from gendel.gan.run import code_fingerprint, run_job, run_profile
from gendel.gan.vdm import VDMDRE

__all__ = ["DCGAN", "VDMDRE", "LabelClassifier", "PROFILES", "Profile", "Job", "jobs", "find_job", "run_job",
           "run_profile", "train", "JobResult", "load_result", "load_results", "stored_results",
           "remake_command", "code_fingerprint"]
