"""The 2-D experiments of §5.1 and Appendix D.

    data         MoG-8 and CKB-8, their deletion sets and densities
    protocol     :class:`~gendel.synthetic.protocol.Protocol`, the settings of one run; ``setup``, the
                 data, X' and the exact ratio of a protocol; the samples every DRE of a run shares
    experiments  runs of the protocol, each taking a Protocol: ``synthetic_statistics``, ``sweep``
                 (cached on disk run by run), ``ratio_maps``; the chapter's grids

A page writes the settings where the reader sees them, ``Protocol("mog8", lam=0.6)``, and from
there to the deletion set is four calls: ``sweep`` -> ``synthetic_statistics`` -> ``setup`` ->
``data.deletion_mask``.
"""
