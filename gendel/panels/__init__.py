"""ipywidgets panels for a live kernel (Jupyter, Binder, Colab); inert in the static book.

    base             the :class:`~gendel.panels.base.Panel` every panel derives from (debounced
                     redraws, computing ahead while idle)
    explorer         the explore page's panel (λ, σ_A, σ_C or k): ratio maps and KS statistics
    explorer_state   its state and caches, without ipywidgets
    explorer_figures its plotly figures
    deletion_test    the deletion test chapter's panel
    gan              the GAN chapter's label panel
"""
