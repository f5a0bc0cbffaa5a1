"""The deep-learning half of the paper: VDM density ratios for DCGANs (§3.2, §5.2, Appendix E).

Modules
-------
images       MNIST and Fashion-MNIST, readable offline; the deletion sets of Appendix E.1
networks     the DCGAN generator and discriminator for 28 x 28 images, an MLP, a label CNN
devices      where a network trains (CPU or CUDA), the hardware record
checkpoints  per-epoch checkpoints keyed by configuration: keys, files, checks
training     epoch loops with progress that checkpoint every epoch and resume
dcgan        :class:`~gendel.gan.dcgan.DCGAN`, the learner
vdm          :class:`~gendel.gan.vdm.VDMDRE`, the VDM density ratio estimator
classifier   :class:`~gendel.gan.classifier.LabelClassifier`, which reads the label distribution of generated images
profiles     the sizes (:data:`~gendel.gan.profiles.PROFILES`) and the jobs of §5.2
experiment   a job's stages: train, Q2 (fast deletion), Q3 (the deletion test), per-epoch curves; make_result runs them
result_files :class:`~gendel.gan.result_files.JobResult`, the result files, the results stored with gendel, their provenance
schema       the declared schema of a result file and the checksum of its content
seal         sealing results made before result files carried checksums
run          :func:`~gendel.gan.run.run_job`, the rule for "done", :func:`~gendel.gan.run.code_fingerprint` and the provenance record
grid         the jobs of a profile as N processes here or on SLURM
labels       label arithmetic: deleted labels, distributions, TV, Alg. 1's re-weighting min(ρ̂_ℰ, B)
summaries    from results to the chapter's numbers per question (the claims are in :mod:`gendel.claims.gan`)

``python -m gendel.gan`` runs jobs and grids. The names live in their modules, and this package
imports none of them: ``from gendel.gan.dcgan import DCGAN``, ``from gendel.gan.result_files import
stored_results``. So importing a module (``gendel.gan.images``, ``gendel.gan.result_files``) loads what that
module needs and no more: torch only where a module trains or runs a network (``networks``, ``devices``,
``checkpoints``, ``training``,
``dcgan``, ``vdm``, ``classifier``). The rest of gendel never imports torch.

Threads: torch runs its CPU work on OpenMP threads, which by default spin at each barrier while
they wait for work. On a machine whose cores are shared (a laptop running a browser, a notebook
server, a CI runner), the spinning threads take the cores the work needs: on 2 busy cores, two
epochs of a width-16 DCGAN took 48 s (12 s CPU) spinning and 3.3 s (1.7 s CPU) with passive waits
(``benchmarks/bench_omp_wait.py``). So importing ``gendel.gan`` (which every module of it
does first, before any of them imports torch) sets ``OMP_WAIT_POLICY=PASSIVE`` unless the
environment already sets it. OpenMP reads the variable once, when torch is first imported: in a
process that imported torch before gendel, set it in the environment yourself.
"""

import os

# Before any module of gendel.gan imports torch (see the docstring); a value the user set stays.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
