"""The 2-D experiments of §5.1 and Appendix D.

    data         MoG-8 and CKB-8, their deletion sets and densities
    protocol     :class:`~gendel.synthetic.protocol.Protocol`, the settings of one run, and the samples
                 every DRE of a run shares
    experiments  runs of the protocol (cached on disk), sweeps over λ and DREs, the chapter's grids
"""
